-- Candle rollups of 1 s and 15 s (ROLLUP_SECONDS in src/domain/resolution.ts), so the seconds
-- resolutions (1S, 5S, 15S, 30S) fold at most a few rollup rows per bar instead of every trade
-- of a busy second. Ingest writes them from now on; this fills them for the trades already
-- stored, with the same open / close rule as ingest: first and last trade in (block_time, id).
INSERT INTO candles (token_id, res, t, o, h, l, c, v, vb, n, nb, o_time, o_id, c_time, c_id)
SELECT token_id, res, t,
       max(CASE WHEN ka = 1 THEN price_usd END), max(price_usd), min(price_usd), max(CASE WHEN kd = 1 THEN price_usd END),
       sum(volume_usd), sum(CASE WHEN is_buy = 1 THEN volume_usd ELSE 0 END), count(*), sum(is_buy),
       max(CASE WHEN ka = 1 THEN block_time END), max(CASE WHEN ka = 1 THEN id END),
       max(CASE WHEN kd = 1 THEN block_time END), max(CASE WHEN kd = 1 THEN id END)
FROM (
  SELECT token_id, r.res AS res, block_time / r.res * r.res AS t, block_time, id, price_usd, volume_usd, is_buy,
         row_number() OVER (PARTITION BY token_id, r.res, block_time / r.res ORDER BY block_time, id) AS ka,
         row_number() OVER (PARTITION BY token_id, r.res, block_time / r.res ORDER BY block_time DESC, id DESC) AS kd
  FROM trades, (SELECT 1 AS res UNION ALL SELECT 15) AS r
)
GROUP BY token_id, res, t;
