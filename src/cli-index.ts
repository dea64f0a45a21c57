/**
 * `cli index --config FILE [--until BLOCK] [--json]` (docs/indexer.md, Running it): the chain
 * indexer in the foreground, on the store the server uses (beside a running server, as any CLI
 * writer may). With --until it exits 0 once every configured chain is indexed up to that block
 * and prints the summary; without, it runs until SIGINT or SIGTERM and then prints what it did.
 * A bad file is a usage error (exit 2) naming the field.
 */
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { readIndexerFile } from './indexer/evm/config-file.js';
import type { IndexSummary } from './indexer/evm/run.js';
import type { CommandContext, Output } from './cli-commands.js';

function human(summary: IndexSummary): string {
  return summary.chains
    .map(
      (c) =>
        `${c.chain}: blocks ${c.fromBlock}-${c.toBlock} (${c.blocks}), ${c.trades} trades, ${c.markets} new markets, ${c.tokens} new tokens, ${c.reorgs} reorgs`,
    )
    .join('\n');
}

export async function indexChains(
  ctx: CommandContext & { opts: { config?: string; until?: string } },
  env: Record<string, string | undefined>,
): Promise<Output> {
  const path = ctx.opts.config;
  if (path === undefined || path === '') throw ctx.fail.usage('--config is required');
  let until: number | undefined;
  if (ctx.opts.until !== undefined) {
    if (!/^(0|[1-9][0-9]*)$/.test(ctx.opts.until) || !Number.isSafeInteger(Number(ctx.opts.until))) throw ctx.fail.usage('--until must be a block number');
    until = Number(ctx.opts.until);
  }
  const appConfig = loadConfig(env);
  const config = readIndexerFile(path, appConfig.chains.list, (m) => ctx.fail.usage(`--config ${m}`));
  // Progress and faults go to stderr as log lines; stdout keeps the one summary.
  const log = createLogger(appConfig.logLevel === 'silent' ? 'silent' : 'info', undefined, appConfig.instanceId);
  return ctx.withStore(async (store, services) => {
    // Beside a running server on SQLite, wait for its write lock as `cli ingest` does.
    services.engine.setBusyTimeout?.(store, 120_000);
    // Loaded here, not with the CLI: the other commands need neither viem nor the indexer.
    const { startIndexer } = await import('./indexer/evm/run.js');
    const handle = startIndexer({ config, services, log, until });
    const stop = () => void handle.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      // Without --until, `done` resolves once a signal has stopped every chain.
      const summary = await handle.done;
      return { doc: summary, human: human(summary) };
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  });
}
