import { GraphQLError, parse, type ExecutionResult } from 'graphql';
import { processRegularResult, type Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKETS_PAGE, MARKETS_SCREEN, WALLET_SCREEN } from '../bench/throughput/screens.js';
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { serializeResult } from '../src/serialize.js';
import { createServices, type Services } from '../src/services.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { operation } from './helpers/gateway.js';

describe('serializeResult gives the bytes Yoga answers with (src/serialize.ts)', () => {
  let sim: Simulator;
  let services: Services;
  let app: App;
  const results: ExecutionResult[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    const config = Object.freeze(loadConfig({ RESPONSE_CACHE: 'off', AUTH_IDENTITY_TTL_MS: '0', POSITIONS_SHARE_TTL_MS: '0' }));
    services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }), upstream: { breaker: false } });
    // Each processed result, to write it again with serializeResult.
    const capture: Plugin = { onResultProcess: ({ result }) => void results.push(result as ExecutionResult) };
    app = createApp({ config, services, plugins: [capture] });
    await services.start();
  });
  afterAll(async () => {
    await services.close();
    await sim.close();
  });

  const viewer = () => ({ authorization: `Bearer ${sim.alerts.demo.token}`, 'x-service-client-key': sim.alerts.demo.clientKey });
  const weekAgo = () => new Date(Date.now() - 7 * 86_400_000).toISOString();
  const cases: [string, () => string, () => Record<string, unknown>, () => Record<string, string>][] = [
    ['MarketsPage', () => operation('MarketsPage'), () => ({ first: 25, filter: { types: ['LENDING', 'LOOP', 'PERPETUAL', 'PREDICTION'] } }), () => ({})],
    ['MobileHome', () => operation('MobileHome'), () => ({}), viewer],
    ['MobileHome with the upstream ledger (extensions)', () => operation('MobileHome'), () => ({}), () => ({ ...viewer(), 'x-gateway-debug': '1' })],
    ['AssetDetail', () => operation('AssetDetail'), () => ({ id: 'bitcoin:native', from: weekAgo(), first: 5 }), () => ({})],
    ['SearchAssets', () => operation('SearchAssets'), () => ({ query: 'sol', first: 5 }), () => ({})],
    ['ViewerInbox', () => operation('ViewerInbox'), () => ({ first: 5 }), viewer],
    ['WalletPositions', () => operation('WalletPositions'), () => ({ address: sim.world.demoWallets[0], first: 50 }), () => ({})],
    ['WalletHistory', () => operation('WalletHistory'), () => ({ address: sim.world.demoWallets[0], from: weekAgo(), resolution: 'ONE_DAY' }), () => ({})],
    ['the bench markets screen', () => MARKETS_SCREEN, () => ({ first: MARKETS_PAGE }), () => ({})],
    ['the bench wallet screen', () => WALLET_SCREEN, () => ({ address: sim.world.demoWallets[0], first: 50 }), () => ({})],
    ['a field error beside data', () => operation('MarketsPage'), () => ({ first: 5, filter: { providers: ['Not A Provider!'] } }), () => ({})],
    ['a refused caller', () => operation('MobileHome'), () => ({}), () => ({ authorization: 'Bearer nope', 'x-service-client-key': sim.alerts.demo.clientKey })],
  ];

  it.each(cases)('%s: the same bytes, executed and compiled', async (_name, query, variables, headers) => {
    // The first run executes with graphql-js, the second with the document compiled by graphql-jit.
    for (let run = 0; run < 2; run++) {
      results.length = 0;
      const response = await app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers() },
        body: JSON.stringify({ query: query(), variables: variables() }),
      });
      const text = await response.text();
      expect(results).toHaveLength(1);
      expect(serializeResult(results[0]!, parse(query()))).toBe(text);
      expect(text.length).toBeGreaterThan(20);
    }
  });
});

describe("serializeResult against Yoga's result processing", () => {
  const yogaBytes = (result: ExecutionResult) => processRegularResult(result, { Response } as never, 'application/json').text();
  const document = parse('{ a { name } }');

  it('leaves out extensions.http and the errors\' internal extensions, as Yoga does', async () => {
    const error = new GraphQLError('bad "thing"', { path: ['a', 'name'], extensions: { code: 'X', http: { status: 400 }, unexpected: true } });
    const bare = new GraphQLError('no extensions', { extensions: { http: { headers: { a: 'b' } } } });
    const results: ExecutionResult[] = [
      { errors: [error, bare], data: { a: null }, extensions: { upstream: [{ service: 'assets', ms: 1.25 }], http: { status: 200 } } },
      { data: { a: { name: 'line\nbreak "q" \ud800' } }, extensions: { http: { headers: { 'Last-Modified': 'x' } } } },
      { errors: [error] },
      { data: { a: { name: 'n' } } },
    ];
    for (const result of results) expect(serializeResult(result, document)).toBe(await yogaBytes(result));
    expect(serializeResult(results[0]!, document)).not.toContain('unexpected');
  });

  it('writes a result with its own stringify (a cached answer\'s held body) through it', () => {
    const held = { data: { a: { name: 'n' } }, stringify: () => '{"held":true}' } as ExecutionResult;
    expect(serializeResult(held, document)).toBe('{"held":true}');
  });
});
