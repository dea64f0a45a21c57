/**
 * Reading the indexer file named by INDEXER_CONFIG or `cli index --config` (docs/indexer.md, The
 * file): a file that is missing, not JSON or invalid is refused with one line naming the field.
 */
import { readFileSync } from 'node:fs';
import { IndexerConfigError, parseIndexerConfig, type IndexerConfig } from './config.js';

/** Reads and validates the file; `fail` makes the caller's error (a usage error, a ConfigError). */
export function readIndexerFile(path: string, chains: readonly string[], fail: (message: string) => Error): IndexerConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw fail(`${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw fail(`${path} is not JSON: ${(err as Error).message}`);
  }
  try {
    return parseIndexerConfig(value, chains);
  } catch (err) {
    if (err instanceof IndexerConfigError) throw fail(`${path}: ${err.message}`);
    throw err;
  }
}
