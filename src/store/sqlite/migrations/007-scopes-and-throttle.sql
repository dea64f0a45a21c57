-- The manage scope (docs/api.md, Authentication and keys): creating, rotating and revoking keys and
-- registering subscriptions used to need only `read`. Keys that existed before keep what they
-- could do: every key holding `read` also gets `manage`.
UPDATE api_keys
SET scopes = trim(replace(',' || scopes || ',', ',read,', ',read,manage,'), ',')
WHERE (',' || scopes || ',') LIKE '%,read,%' AND (',' || scopes || ',') NOT LIKE '%,manage,%';

-- The sign-in throttle drops rows older than its window on every attempt; by time, so that
-- pruning does not scan every row an attack from many addresses leaves behind.
CREATE INDEX sign_in_failures_at ON sign_in_failures(at);
