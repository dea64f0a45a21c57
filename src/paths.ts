/**
 * Locations of files that ship with the project (migrations, page assets, installed packages).
 * Works the same from `src/` under tsx and from `dist/src/` after a build.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

/** The project root (the folder holding package.json). */
export const projectRoot = findRoot();

export const migrationsDir = join(projectRoot, 'src', 'store', 'sqlite', 'migrations');
export const webDir = join(projectRoot, 'src', 'web');
export const nodeModulesDir = join(projectRoot, 'node_modules');
