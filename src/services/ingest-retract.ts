/**
 * The rules of a retraction that both ingests share (docs/indexer.md, Reorgs: what a retraction
 * removes): its records are validated like an ingest batch's before anything is written, with two
 * more refusals (a trade, since a retraction only writes back what stood before; a record naming
 * a token the same retraction deletes), and what its hooks are handed.
 */
import { oneChain, type Chains } from '../domain/chains.js';
import type { Retraction } from '../store/port/retract.js';
import { IngestRejected, namedKey, type NumberedRecord, type Validator } from './ingest-validator.js';

/**
 * The records of `r`, validated by `v` (built so that tokens of `r.tokens` count as not stored), or
 * throws IngestRejected naming each bad one (line = its place in `r.records`, from 1). `r.tokens`
 * are store keys and a record names its token on its `chain` (docs/chains.md), so the two are
 * compared as store keys of `chains`.
 */
export function checkRetraction(r: Retraction, v: Validator, chains: Chains = ONE_CHAIN): NumberedRecord[] {
  const deleted = new Set(r.tokens);
  const out: NumberedRecord[] = [];
  r.records.forEach((value, i) => {
    const line = i + 1;
    if (value.type === 'trade') {
      v.reject(line, 'a retraction writes back no trades');
      return;
    }
    const named = value.type === 'token' ? value.address : value.token;
    const token = namedKey(named, value.chain, chains);
    if (deleted.has(token)) {
      v.reject(line, `token ${token} is deleted by this retraction`);
      return;
    }
    const record = v.check(line, value);
    if (record !== null) out.push({ line, record });
  });
  if (v.errors.length > 0) throw new IngestRejected(v.errors);
  return out;
}

const ONE_CHAIN = oneChain();
