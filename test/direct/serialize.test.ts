import type { ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, processRegularResult, type FetchAPI, type Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { processResult } from '../../src/serialize.js';
import { createServices, type Services } from '../../src/services.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { operation } from '../helpers/gateway.js';

/** Yoga's own processing of a result, kept as its Response would receive it. */
function yogas(result: ExecutionResult, media: string): { body: string; status: number; headers: Record<string, string> } {
  let kept: { body: string; status: number; headers: Record<string, string> } | undefined;
  class Kept {
    constructor(body: string, init: { status: number; headers: Record<string, string> }) {
      kept = { body, status: init.status, headers: { ...init.headers } };
    }
  }
  processRegularResult(result, { Response: Kept } as unknown as FetchAPI, media);
  return kept!;
}

const MEDIA = ['application/json', 'application/graphql-response+json'];

/**
 * The direct path's serialization (src/serialize.ts) writes the bytes, status and headers Yoga's result
 * processor writes, for the results graphql-jit gives the operations real frontends send (compiled: each
 * runs twice first), and for results with errors and extensions, which it hands to Yoga's processor.
 */
describe('serializing a result as Yoga does', () => {
  let sim: Simulator;
  let services: Services;
  let app: App;
  let last: ExecutionResult | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    const config = Object.freeze(loadConfig({ RESPONSE_CACHE: 'off', AUTH_IDENTITY_TTL_MS: '0', POSITIONS_SHARE_TTL_MS: '0' }));
    services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }), upstream: { breaker: false } });
    // The executed result itself, as the direct path hands it to the serializer.
    const keep: Plugin = { onExecute: () => ({ onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result }) => void (last = result)) }) };
    app = createApp({ config, services, plugins: [keep] });
    await services.start();
  });
  afterAll(async () => {
    await services.close();
    await sim.close();
  });

  const run = async (query: string, variables: Record<string, unknown>, headers: Record<string, string>, times = 3): Promise<ExecutionResult> => {
    for (let i = 0; i < times; i++) {
      const response = await app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      });
      await response.text();
    }
    return last!;
  };
  const viewer = () => ({ authorization: `Bearer ${sim.alerts.demo.token}`, 'x-service-client-key': sim.alerts.demo.clientKey });
  const expectParity = (result: ExecutionResult) => {
    for (const media of MEDIA) {
      const ours = processResult(result, media);
      expect({ body: ours.body, status: ours.init.status, headers: { ...ours.init.headers } }).toEqual(yogas(result, media));
    }
  };

  const weekAgo = () => new Date(Date.now() - 7 * 86_400_000).toISOString();
  const cases: [string, () => Record<string, unknown>, boolean][] = [
    ['MobileHome', () => ({}), true],
    ['MarketsPage', () => ({ first: 100 }), false],
    ['WalletPositions', () => ({ address: sim.world.demoWallets[0], first: 50 }), false],
    ['AssetDetail', () => ({ id: 'bitcoin:native', from: weekAgo(), first: 5 }), false],
    ['SearchAssets', () => ({ query: 'sol', first: 5 }), false],
    ['ViewerInbox', () => ({ first: 5 }), true],
    ['WalletHistory', () => ({ address: sim.world.demoWallets[0], from: weekAgo(), resolution: 'ONE_DAY' }), false],
  ];

  it.each(cases)('%s: the same bytes, status and headers', async (name, variables, signedIn) => {
    const result = await run(operation(name), variables(), signedIn ? viewer() : {});
    expect(result.errors).toBeUndefined();
    expect(typeof (result as { stringify?: unknown }).stringify).toBe('function');
    expect(JSON.stringify(result).length).toBeGreaterThan(100);
    expectParity(result);
  });

  it('a result with errors: the masked errors and the status Yoga gives', async () => {
    const result = await run(operation('MobileHome'), {}, {});
    expect(result.errors?.length).toBeGreaterThan(0);
    expectParity(result);
  });

  it('results with extensions, internal ones or not, and with an empty error list', () => {
    expectParity({ data: { a: 1 }, extensions: { http: { status: 202, headers: { 'x-a': 'b' } } } });
    expectParity({ data: { a: 1 }, extensions: { ledger: { calls: 2 } } });
    expectParity({ data: null, errors: [] });
    expectParity(Object.assign({ data: { a: 'é' } }, { stringify: (value: unknown) => JSON.stringify(value, null, 1) }));
  });
});
