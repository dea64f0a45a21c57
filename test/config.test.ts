import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('gives the contract defaults for an empty environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databasePath: 'data/tokens.db',
      chain: 'solana',
      demoData: 'auto',
      demoFeed: true,
      trustProxy: 0,
      rateLimitAnon: { limit: 300, windowSeconds: 60 },
      corsOrigins: '*',
      logLevel: 'info',
      webhookAllowPrivate: false,
      maxConnectionsPerIp: 256,
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_PATH: ':memory:',
      CHAIN: 'base',
      DEMO_DATA: 'off',
      DEMO_FEED: 'off',
      TRUST_PROXY: '2',
      RATE_LIMIT_ANON: '10/1',
      CORS_ORIGINS: 'https://a.example, http://b.example:8080',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    expect(c).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      databasePath: ':memory:',
      chain: 'base',
      demoData: 'off',
      demoFeed: false,
      trustProxy: 2,
      rateLimitAnon: { limit: 10, windowSeconds: 1 },
      corsOrigins: ['https://a.example', 'http://b.example:8080'],
      logLevel: 'warn',
      webhookAllowPrivate: true,
    });
  });

  it('reads MAX_CONNECTIONS_PER_IP', () => {
    expect(loadConfig({ MAX_CONNECTIONS_PER_IP: '16' }).maxConnectionsPerIp).toBe(16);
  });

  it('bounds the response cache in bytes: CACHE_MAX_MB, default 256', () => {
    expect(loadConfig({}).cacheMaxBytes).toBe(256 * 1024 * 1024);
    expect(loadConfig({ CACHE_MAX_MB: '1' }).cacheMaxBytes).toBe(1024 * 1024);
    for (const bad of ['0', '-1', '1.5', '64MB', '1e3']) expect(() => loadConfig({ CACHE_MAX_MB: bad })).toThrow(/^invalid CACHE_MAX_MB/);
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(8080);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '08080'],
    ['PORT', '1e3'],
    ['DEMO_DATA', 'yes'],
    ['DEMO_FEED', 'true'],
    ['TRUST_PROXY', '1.5'],
    ['RATE_LIMIT_ANON', '300'],
    ['RATE_LIMIT_ANON', '0/60'],
    ['RATE_LIMIT_ANON', '300/0'],
    ['CORS_ORIGINS', 'not an origin'],
    ['LOG_LEVEL', 'loud'],
    ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
    ['CHAIN', 'Sol Ana'],
    ['MAX_CONNECTIONS_PER_IP', '0'],
    ['MAX_CONNECTIONS_PER_IP', '-5'],
    ['MAX_CONNECTIONS_PER_IP', 'many'],
    ['MAX_CONNECTIONS_PER_IP', '1000001'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as Error).message;
    expect(message.startsWith(`invalid ${name}`)).toBe(true);
    expect(message).not.toContain('\n');
  });
  it('reads DATABASE_URL (postgres:// or postgresql://), REDIS_URL (redis:// or rediss://) and INSTANCE_ID', () => {
    const none = loadConfig({});
    expect([none.databaseUrl, none.redisUrl]).toEqual([null, null]);
    expect(none.instanceId).toMatch(new RegExp(`-${process.pid}$`));
    const c = loadConfig({ DATABASE_URL: 'postgres://svc:pw@db.internal:5432/tokens', REDIS_URL: 'rediss://cache:6380/2', INSTANCE_ID: 'api-3' });
    expect([c.databaseUrl, c.redisUrl, c.instanceId]).toEqual(['postgres://svc:pw@db.internal:5432/tokens', 'rediss://cache:6380/2', 'api-3']);
    expect(loadConfig({ DATABASE_URL: 'postgresql://db/x', REDIS_URL: 'redis://127.0.0.1' })).toMatchObject({
      databaseUrl: 'postgresql://db/x',
      redisUrl: 'redis://127.0.0.1',
    });
  });

  it('refuses engine URLs of another kind, without a host, or with a bad Redis database, never echoing a password', () => {
    for (const bad of ['mysql://u:p@h/db', 'postgres://', 'data/tokens.db', 'http://db:5432/x']) {
      expect(() => loadConfig({ DATABASE_URL: bad })).toThrow(/^invalid DATABASE_URL .*must be a URL like postgres:\/\//);
    }
    for (const bad of ['http://cache:6379', 'redis://', 'redis://cache:6379/zero', 'cache:6379']) {
      expect(() => loadConfig({ REDIS_URL: bad })).toThrow(/^invalid REDIS_URL/);
    }
    expect(() => loadConfig({ DATABASE_URL: 'mysql://svc:hunter2@h/db' })).toThrow('invalid DATABASE_URL (got "mysql://svc:***@h/db")');
    for (const bad of ['has space', 'x'.repeat(65), 'a/b']) expect(() => loadConfig({ INSTANCE_ID: bad })).toThrow(/^invalid INSTANCE_ID/);
  });
});
