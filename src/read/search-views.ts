/**
 * /v1/search over the search index and the 24 h window board (docs/api.md, Search). Order: exact
 * address, exact symbol, symbol prefix, name contains; within each by 24 h volume, ties by
 * address; each token once, under its best match. A match kind's tokens with 24 h volume are
 * among the board's traded tokens, already in volume order; the rest (volume 0, by address) are
 * read from the index with paged index ranges: exact symbol is one range in address order; for
 * prefix and name matches, whose index order is not address order, a walk of every token in
 * address order and an enumeration of the matches (the symbol range; for names the trigram index,
 * or the table of one- and two-character substrings for shorter queries) take turns, and the
 * first to finish gives the answer. The walk finishes after about need / density rows, the
 * enumeration after the number of matches: the cheaper of the two, at most twice over.
 */
import { MATCH_KINDS, foldCase, type IndexedToken, type MatchKind, type SearchIndexRepo } from '../store/port/repos.js';
import type { Async } from '../store/port/async.js';
import type { BoardEntry, BoardView } from './window-board.js';
import { RANKINGS, byAddress, matchKind } from '../domain/discovery.js';

/** Rows per index page. */
export const SEARCH_PAGE = 256;
/** Index pages read between two pauses: about 1,000 rows, a few milliseconds of one turn. */
export const PAGES_PER_TURN = 4;

export type SearchHit = { id: number; volume24hUsd: number; matchedBy: MatchKind };

/**
 * The first `want` tokens matching `q` in search order; `address` is the store key (or keys) the
 * query names exactly, or null: a plain address names that address on every chain of the
 * deployment (docs/chains.md). `keep`, when given, admits only the tokens whose key it accepts
 * (`chain=`): the index reads page on past the others. `board` is the 24 h board, refreshed by the caller; `page` is the rows per
 * index read (smaller in tests, to cross page boundaries with few tokens). A query that matches
 * thousands of tokens pages through them: every PAGES_PER_TURN pages the search calls `pause`, which
 * lets the event loop run other requests (docs/api.md, Search: what a request costs); the caller
 * makes it wait for a sliced ingest under way as well, so no page reads half a batch.
 */
export async function searchTokens(
  index: Async<SearchIndexRepo>,
  board: BoardView,
  q: string,
  address: string | readonly string[] | null,
  want: number,
  page = SEARCH_PAGE,
  pause: () => Promise<void> = async () => {},
  keep?: (key: string) => boolean,
): Promise<SearchHit[]> {
  const exactKeys: readonly string[] = address === null ? [] : typeof address === 'string' ? [address] : address;
  const exactSet = new Set(exactKeys);
  const kept = (key: string): boolean => keep === undefined || keep(key);
  const PAGE = page;
  let pages = 0;
  /** After each page of a walk: every PAGES_PER_TURN pages, a pause. */
  const paged = async (): Promise<void> => {
    if (++pages % PAGES_PER_TURN === 0) await pause();
  };
  const qf = foldCase(q);
  const kindOf = (x: { address: string; sym: string; name: string }): number => (exactSet.has(x.address) ? 0 : matchKind(x, qf, null));
  const traded = (id: number): boolean => (board.get(id)?.f.volumeUsd ?? 0) > 0;

  // Tokens with volume, by kind, in volume order (the trending order is volume, then address).
  // Only the first `want` of a kind can be answered, so a kind that has them stops being tested
  // (a full prefix kind still keeps its tokens out of the name kind).
  const withVolume: SearchHit[][] = MATCH_KINDS.map(() => []);
  const [byAddr, bySym, byPrefix, byName] = withVolume as [SearchHit[], SearchHit[], SearchHit[], SearchHit[]];
  const hit = (e: BoardEntry, kind: number): SearchHit => ({ id: e.t.id, volume24hUsd: e.f.volumeUsd, matchedBy: MATCH_KINDS[kind]! });
  // The first reads go out together; each is one index range.
  const [exactFound, sameSymbol, fewPrefixes, fewNames] = await Promise.all([
    Promise.all(exactKeys.map((key) => index.byAddress(key))),
    index.bySymbol(qf, '', PAGE),
    index.bySymbolPrefix(qf, { sym: qf, address: '' }, PAGE),
    [...qf].length >= 3 ? index.byName(qf, 0, PAGE) : index.byShortName(qf, 0, PAGE),
  ]);
  const exact = exactFound.filter((x): x is IndexedToken => x !== undefined && kept(x.address)).sort(byAddress);
  const exactTraded = exact.flatMap((x) => {
    const e = board.get(x.id);
    return e !== undefined && e.f.volumeUsd > 0 ? [e] : [];
  });
  exactTraded.sort(RANKINGS.trending.order);
  byAddr.push(...exactTraded.map((e) => hit(e, 0)));
  // The exact-symbol tokens, from the index when they fit in one page: then the walk below can
  // stop as soon as it has the prefix matches the answer can hold, instead of looking through
  // every traded token for a late exact match.
  const symbolKnown = sameSymbol.length < PAGE;
  if (symbolKnown) {
    const traded = sameSymbol.flatMap((x) => {
      const e = exactSet.has(x.address) || !kept(x.address) ? undefined : board.get(x.id);
      return e !== undefined && e.f.volumeUsd > 0 ? [e] : [];
    });
    traded.sort(RANKINGS.trending.order);
    bySym.push(...traded.slice(0, want).map((e) => hit(e, 1)));
  }
  // When the prefix and name matches fit a page each too, every match is known: their traded
  // tokens come from the board by id and no walk is needed (rare queries).
  const allKnown = symbolKnown && fewPrefixes.length < PAGE && fewNames.length < PAGE;
  if (allKnown) {
    for (const [kind, list] of [
      [2, byPrefix],
      [3, byName],
    ] as const) {
      const traded = [...fewPrefixes, ...fewNames].flatMap((x) => {
        const e = kindOf(x) === kind && kept(x.address) ? board.get(x.id) : undefined;
        return e !== undefined && e.f.volumeUsd > 0 ? [e] : [];
      });
      const unique = [...new Map(traded.map((e) => [e.t.id, e])).values()];
      unique.sort(RANKINGS.trending.order);
      list.push(...unique.slice(0, want).map((e) => hit(e, kind)));
    }
  }
  for (const e of allKnown ? [] : board.ranking('trending')) {
    if (bySym.length >= want) break;
    if (symbolKnown && byPrefix.length >= want - byAddr.length - bySym.length) break;
    if (exactSet.has(e.t.address) || !kept(e.t.address)) continue;
    if (e.sym === qf) {
      if (!symbolKnown) bySym.push(hit(e, 1));
    } else if (e.sym.startsWith(qf)) {
      if (byPrefix.length < want) byPrefix.push(hit(e, 2));
    } else if (byName.length < want && e.name.includes(qf)) byName.push(hit(e, 3));
  }

  /** Up to `need` tokens of match kind `kind` without volume, by address. */
  async function withoutVolume(kind: number, need: number): Promise<IndexedToken[]> {
    const fits = (x: IndexedToken) => kindOf(x) === kind && !traded(x.id) && kept(x.address);
    if (kind === 0) return exact.filter(fits).slice(0, need);
    if (kind === 1) {
      const out: IndexedToken[] = [];
      for (let after = ''; ;) {
        const page = await index.bySymbol(qf, after, PAGE);
        await paged();
        out.push(...page.filter(fits));
        if (out.length >= need || page.length < PAGE) return out.slice(0, need);
        after = page.at(-1)!.address;
      }
    }
    // Prefix or name: the address walk and the enumeration take turns.
    let prefixFrom = { sym: qf, address: '' };
    let nameAfter = 0;
    const enumerate: () => Promise<IndexedToken[]> =
      kind === 2
        ? async () => {
            const page = await index.bySymbolPrefix(qf, prefixFrom, PAGE);
            const last = page.at(-1);
            if (last !== undefined) prefixFrom = { sym: last.sym, address: last.address };
            return page;
          }
        : async () => {
            const page = await ([...qf].length >= 3 ? index.byName(qf, nameAfter, PAGE) : index.byShortName(qf, nameAfter, PAGE));
            nameAfter = page.at(-1)?.id ?? nameAfter;
            return page;
          };
    const walked: IndexedToken[] = [];
    const enumerated: IndexedToken[] = [];
    for (let after = ''; ;) {
      const page = await index.inAddressOrder(after, PAGE);
      await paged();
      walked.push(...page.filter(fits));
      if (walked.length >= need || page.length < PAGE) return walked.slice(0, need);
      after = page.at(-1)!.address;
      const found = await enumerate();
      await paged();
      enumerated.push(...found.filter(fits));
      if (found.length < PAGE) return enumerated.sort(byAddress).slice(0, need);
    }
  }

  const out: SearchHit[] = [];
  for (let kind = 0; kind < MATCH_KINDS.length && out.length < want; kind++) {
    out.push(...withVolume[kind]!.slice(0, want - out.length));
    if (out.length < want) {
      for (const x of await withoutVolume(kind, want - out.length)) out.push({ id: x.id, volume24hUsd: 0, matchedBy: MATCH_KINDS[kind]! });
    }
  }
  return out;
}
