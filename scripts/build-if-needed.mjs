// `npm start`'s build step: compiles TypeScript only when a source file changed since the last
// build (a stamp file in dist/), incrementally (tsc keeps its own build info), and says what it
// is doing, since a cold build takes several seconds. README, Set-up.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
// What the build reads: TypeScript under src/ and bench/, and the compiler settings.
const inputs = ['src', 'bench'];
const settings = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newerThan(since) {
  const changed = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && statSync(path).mtimeMs > since) changed.push(path);
    }
  };
  for (const dir of inputs) if (existsSync(join(root, dir))) walk(join(root, dir));
  for (const file of settings) if (existsSync(join(root, file)) && statSync(join(root, file)).mtimeMs > since) changed.push(join(root, file));
  return changed.map((p) => relative(root, p));
}

const since = existsSync(stamp) && existsSync(join(root, 'dist', 'src', 'server.js')) ? statSync(stamp).mtimeMs : -1;
const changed = since < 0 ? null : newerThan(since);
if (changed !== null && changed.length === 0) process.exit(0);

const what =
  changed === null
    ? 'first build'
    : `${changed.length} changed file${changed.length === 1 ? '' : 's'}: ${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''}`;
process.stderr.write(`building (${what})…\n`);
const started = Date.now();
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (result.status !== 0) {
  process.stderr.write('build failed: the errors are above; the service was not started\n');
  process.exit(result.status ?? 1);
}
writeFileSync(stamp, new Date().toISOString() + '\n');
process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
