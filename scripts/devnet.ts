// `npm run devnet`: a local chain with Uniswap V2 and V3, simulated traders, and the server
// indexing it (src/devnet/run-devnet.ts). Ctrl-C stops the traders, the server and the node.
import { runDevnet } from '../src/devnet/run-devnet.js';

const devnet = await runDevnet().catch((err: unknown) => {
  process.stderr.write(`devnet: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
const stop = (): void => void devnet.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
