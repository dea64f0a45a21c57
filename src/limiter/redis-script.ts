/**
 * Lua scripts on Redis, shared by the Redis limiter and the connection counter: each script is
 * run by its SHA, so the script text crosses the network only when this Redis has not seen it
 * (after a restart or a SCRIPT FLUSH, Redis answers NOSCRIPT and the script is loaded once).
 */
import { createHash } from 'node:crypto';

/** What the scripts need of a node-redis client (v5+; a RedisClientType fits). */
export type ScriptClient = {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  scriptLoad(script: string): Promise<string>;
};

/** A script's text and the SHA Redis knows it by. */
export type LuaScript = { src: string; sha: string };

export const luaScript = (src: string): LuaScript => ({ src, sha: createHash('sha1').update(src).digest('hex') });

/** Runs the script on one key by its SHA, loading it first when this Redis does not know it yet. */
export async function evalScript(client: ScriptClient, script: LuaScript, key: string, args: string[]): Promise<unknown> {
  const options = { keys: [key], arguments: args };
  try {
    return await client.evalSha(script.sha, options);
  } catch (err) {
    if (!String((err as Error)?.message).startsWith('NOSCRIPT')) throw err;
    await client.scriptLoad(script.src);
    return client.evalSha(script.sha, options);
  }
}
