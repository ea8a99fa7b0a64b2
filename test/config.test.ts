import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('defaults to port 4000 and the embedded simulator when no upstream URL is set', () => {
    const config = loadConfig({});
    expect(config.port).toBe(4000);
    expect(config.upstreams).toBeNull();
    expect(config.webhookSecret).toBeNull();
    expect(config.positionsBatchSize).toBe(1);
    expect(config.upstreamTimeoutMs).toBe(5000);
    expect(config.assetsTimeoutMs).toBe(1500);
    expect(config.upstreamCallBudget).toBe(500);
    expect(config.marketIndexRefreshMs).toBe(60_000);
    expect(config.maxQueryCost).toBe(20_000);
    expect(config.production).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes all three upstream URLs, without trailing slashes', () => {
    const config = loadConfig({
      ALERTS_URL: 'http://alerts.internal:7001/',
      MARKETS_URL: 'https://markets.internal/api',
      ASSETS_URL: 'http://127.0.0.1:7003',
    });
    expect(config.upstreams).toEqual({
      alerts: 'http://alerts.internal:7001',
      markets: 'https://markets.internal/api',
      assets: 'http://127.0.0.1:7003',
    });
  });

  it('refuses some but not all upstream URLs, naming the missing ones', () => {
    expect(() => loadConfig({ ALERTS_URL: 'http://a:1' })).toThrow(ConfigError);
    expect(() => loadConfig({ ALERTS_URL: 'http://a:1' })).toThrow(/MARKETS_URL, ASSETS_URL/);
    expect(() => loadConfig({ ALERTS_URL: 'http://a:1', MARKETS_URL: 'http://m:1' })).toThrow(/missing: ASSETS_URL/);
  });

  it('refuses NODE_ENV=production with no upstream URL, naming the three variables', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/ALERTS_URL, MARKETS_URL, ASSETS_URL/);
  });

  it.each([
    ['PORT', 'eighty', /PORT/],
    ['PORT', '70000', /PORT/],
    ['ASSETS_FALLBACK_URL', 'not a url', /ASSETS_FALLBACK_URL/],
    ['ASSETS_FALLBACK_URL', 'ftp://x', /ASSETS_FALLBACK_URL/],
    ['REDIS_URL', 'http://redis', /REDIS_URL/],
    ['POSITIONS_BATCH_SIZE', '26', /POSITIONS_BATCH_SIZE/],
    ['POSITIONS_BATCH_SIZE', '0', /POSITIONS_BATCH_SIZE/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL/],
    ['ASSETS_TIMEOUT_MS', '10', /ASSETS_TIMEOUT_MS/],
    ['UPSTREAM_CALL_BUDGET', '-1', /UPSTREAM_CALL_BUDGET/],
    ['MARKET_INDEX_REFRESH_MS', '10', /MARKET_INDEX_REFRESH_MS/],
    ['MARKET_INDEX_REFRESH_MS', 'soon', /MARKET_INDEX_REFRESH_MS/],
    ['MAX_QUERY_COST', 'lots', /MAX_QUERY_COST/],
    ['MAX_QUERY_COST', '99', /MAX_QUERY_COST/],
    ['RESPONSE_CACHE', 'maybe', /RESPONSE_CACHE: must be on or off/],
    ['RESPONSE_CACHE_MAX_BYTES', '1mb', /RESPONSE_CACHE_MAX_BYTES/],
    ['RESPONSE_CACHE_TTL_PRICES_MS', '-5', /RESPONSE_CACHE_TTL_PRICES_MS/],
  ])('names %s when it is bad (%s)', (name, value, pattern) => {
    expect(() => loadConfig({ [name]: value })).toThrow(pattern);
  });

  it('reads the optional settings', () => {
    const config = loadConfig({
      PORT: '8080',
      SERVICE_CLIENT_KEY: 'gw-key',
      WEBHOOK_SECRET: 's3cret',
      REDIS_URL: 'redis://127.0.0.1:6379',
      NODE_ENV: 'production',
      ALERTS_URL: 'http://alerts:7001',
      MARKETS_URL: 'http://markets:7002',
      ASSETS_URL: 'http://assets:7003',
      POSITIONS_BATCH_SIZE: '25',
      ASSETS_FALLBACK_URL: 'http://assets-b:7003',
      MARKET_INDEX_REFRESH_MS: '15000',
      MAX_QUERY_COST: '40000',
    });
    expect(config).toMatchObject({
      port: 8080,
      serviceClientKey: 'gw-key',
      webhookSecret: 's3cret',
      redisUrl: 'redis://127.0.0.1:6379',
      production: true,
      positionsBatchSize: 25,
      assetsFallbackUrl: 'http://assets-b:7003',
      marketIndexRefreshMs: 15_000,
      maxQueryCost: 40_000,
    });
  });

  it('reads the response cache settings: on by default, off with RESPONSE_CACHE=off, a TTL per kind of data', () => {
    expect(loadConfig({})).toMatchObject({
      responseCache: true,
      responseCacheMaxBytes: 64 * 1024 * 1024,
      responseCacheTtlMs: { markets: 30_000, prices: 10_000, metadata: 300_000, private: 5_000 },
    });
    const config = loadConfig({
      RESPONSE_CACHE: 'off',
      RESPONSE_CACHE_MAX_BYTES: '1048576',
      RESPONSE_CACHE_TTL_MARKETS_MS: '60000',
      RESPONSE_CACHE_TTL_PRICES_MS: '2000',
      RESPONSE_CACHE_TTL_METADATA_MS: '3600000',
      RESPONSE_CACHE_TTL_PRIVATE_MS: '0',
    });
    expect(config).toMatchObject({
      responseCache: false,
      responseCacheMaxBytes: 1_048_576,
      responseCacheTtlMs: { markets: 60_000, prices: 2000, metadata: 3_600_000, private: 0 },
    });
  });

  it('reads the request deadline and the ledger switch: 10 s by default, capped at 30 s; the ledger on in development only', () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutDefaultMs: 10_000, requestTimeoutMaxMs: 30_000, debugLedger: true });
    const production = { NODE_ENV: 'production', ALERTS_URL: 'http://a:1', MARKETS_URL: 'http://m:1', ASSETS_URL: 'http://s:1' };
    expect(loadConfig(production).debugLedger).toBe(false);
    expect(loadConfig({ ...production, DEBUG_LEDGER: 'on' }).debugLedger).toBe(true);
    expect(loadConfig({ REQUEST_TIMEOUT_DEFAULT_MS: '2000', REQUEST_TIMEOUT_MAX_MS: '5000' })).toMatchObject({
      requestTimeoutDefaultMs: 2000,
      requestTimeoutMaxMs: 5000,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_DEFAULT_MS: '60000' })).toThrow(/REQUEST_TIMEOUT_DEFAULT_MS.*REQUEST_TIMEOUT_MAX_MS/);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MAX_MS: '0' })).toThrow(/REQUEST_TIMEOUT_MAX_MS/);
    expect(() => loadConfig({ DEBUG_LEDGER: 'yes' })).toThrow(/DEBUG_LEDGER/);
  });

  it('reads the cursor keys and the budget of upstream bytes in flight (at least the largest route cap, 16 MiB)', () => {
    expect(loadConfig({})).toMatchObject({ cursorSecret: null, cursorSecretPrevious: null, upstreamInflightMaxBytes: 64 * 1024 * 1024 });
    expect(loadConfig({ CURSOR_SECRET: 'new', CURSOR_SECRET_PREVIOUS: 'old', UPSTREAM_INFLIGHT_MAX_BYTES: '33554432' })).toMatchObject({
      cursorSecret: 'new',
      cursorSecretPrevious: 'old',
      upstreamInflightMaxBytes: 33_554_432,
    });
    expect(() => loadConfig({ UPSTREAM_INFLIGHT_MAX_BYTES: '1048576' })).toThrow(/UPSTREAM_INFLIGHT_MAX_BYTES/);
  });
});
