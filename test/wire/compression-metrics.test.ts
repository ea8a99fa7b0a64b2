import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/app.js';
import { createHttpServer, SERVER_TIMEOUTS, withFastPath } from '../../src/node-http.js';
import { CompressionBudget } from '../../src/plugins/compression-budget.js';
import { CompressionSlots } from '../../src/plugins/compression.js';
import { encoder } from '../../src/plugins/wire-encoding.js';
import { operation, useTestGateway } from '../helpers/gateway.js';

/**
 * Answers sent uncompressed under load, as an operator sees them: a listener built as lifecycle.ts
 * builds it (the direct path in front of Yoga), its compressions held by the cap or refused by the
 * budget through their own seams, then `/metrics` read over HTTP from the same port.
 */

const gw = useTestGateway();
afterEach(() => vi.restoreAllMocks());

const MARKETS = operation('MarketsPage');
const COUNTER = 'gateway_uncompressed_answers_total';

/** The page's market ids: what stays the same between two answers (a token's metadata source may not). */
const marketIds = (text: string): string[] => (JSON.parse(text) as { data: { markets: { edges: { node: { marketId: string } }[] } } }).data.markets.edges.map((edge) => edge.node.marketId);

interface Answer {
  coding: string | undefined;
  body: Buffer;
}

/** A real listener over an app of the test gateway's services whose compressions go through `slots`. */
function useListener(slots: () => CompressionSlots) {
  let server: Server;
  beforeAll(async () => {
    const app = createApp({ config: gw.config, services: gw.services, compression: slots() });
    server = createHttpServer(app.direct ? withFastPath(app.yoga, app.direct) : app.yoga, SERVER_TIMEOUTS, app.hits);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const base = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** POSTs `query` with `Accept-Encoding: encoding` (none when null): the answer's coding and its bytes as sent. */
    async post(query: string, variables: Record<string, unknown>, encoding: string | null): Promise<Answer> {
      const response = await request(`${base()}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...(encoding ? { 'accept-encoding': encoding } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      expect(response.statusCode).toBe(200);
      return { coding: response.headers['content-encoding'] as string | undefined, body: Buffer.from(await response.body.arrayBuffer()) };
    },
    /** `/metrics` as Prometheus scrapes it: the counter's value for each reason. */
    async uncompressed(): Promise<Record<string, number>> {
      const response = await request(`${base()}/metrics`);
      const text = await response.body.text();
      expect(text).toContain(`# TYPE ${COUNTER} counter`);
      return Object.fromEntries([...text.matchAll(new RegExp(`^${COUNTER}\\{reason="(\\w+)"\\} (\\d+)$`, 'gm'))].map((m) => [m[1]!, Number(m[2])]));
    },
  };
}

describe('answers sent uncompressed because a saturated process spent its compression budget', () => {
  // A process driven by hand: its loop saturated and a request waiting for its turn in every window, its clock and CPU.
  const state = { at: 0, cpu: 0, spent: 0 };
  const budget = () => new CompressionBudget({ now: () => state.at, cpu: () => state.cpu, spent: () => state.spent, utilisation: () => 1, waiting: () => 1 });
  const listener = useListener(() => new CompressionSlots(2, budget()));

  it('are counted on /metrics under reason "cpu_budget", one for each, and no other answer is', async () => {
    const before = await listener.uncompressed();
    expect(Object.keys(before).sort()).toEqual(['concurrency_cap', 'cpu_budget']);
    const plain = marketIds((await listener.post(MARKETS, { first: 100 }, null)).body.toString());
    expect(plain).toHaveLength(100);

    // A saturated window with 100 ms of CPU: 2 ms for compressions in the next. The first answer is compressed...
    [state.at, state.cpu] = [100, 100];
    const first = await listener.post(MARKETS, { first: 100 }, 'br');
    expect(first.coding).toBe('br');
    expect(marketIds(brotliDecompressSync(first.body).toString())).toEqual(plain);
    // ...and takes the window's whole share: the next five go as they are, whole.
    state.spent = 2;
    for (let i = 0; i < 5; i++) {
      const answer = await listener.post(MARKETS, { first: 100 }, i % 2 === 0 ? 'br' : 'gzip, br');
      expect(answer.coding).toBeUndefined();
      expect(marketIds(answer.body.toString())).toEqual(plain);
    }
    // Not counted: an answer under 1 KiB (never compressed), and one whose client asked for none.
    expect((await listener.post('{ __typename }', {}, 'br')).coding).toBeUndefined();
    await listener.post(MARKETS, { first: 100 }, null);

    expect(await listener.uncompressed()).toEqual({ concurrency_cap: before['concurrency_cap'], cpu_budget: before['cpu_budget']! + 5 });

    // The next window brings a new share: compressed again, nothing more counted.
    [state.at, state.cpu] = [200, 200];
    expect((await listener.post(MARKETS, { first: 100 }, 'br')).coding).toBe('br');
    expect(await listener.uncompressed()).toEqual({ concurrency_cap: before['concurrency_cap'], cpu_budget: before['cpu_budget']! + 5 });
  });
});

describe('answers sent uncompressed because every compression slot was taken', () => {
  // A process with spare time: its budget allows every compression, only the cap of two applies.
  const listener = useListener(() => new CompressionSlots(2, new CompressionBudget({ utilisation: () => 0 })));

  it('are counted on /metrics under reason "concurrency_cap"', async () => {
    const before = await listener.uncompressed();
    // Compressions held until the test lets them finish: two take the slots, the third answer finds none.
    const release: (() => void)[] = [];
    const encode = encoder.encode;
    vi.spyOn(encoder, 'encode').mockImplementation((coding, body, effort) => {
      const done = encode(coding, body, effort);
      return new Promise((resolve) => release.push(() => resolve(done)));
    });
    const answers = [0, 1, 2].map(() => listener.post(MARKETS, { first: 100 }, 'br'));
    const first = await Promise.race(answers);
    expect(first.coding).toBeUndefined();
    expect(release).toHaveLength(2);
    release.forEach((finish) => finish());
    expect((await Promise.all(answers)).map((answer) => answer.coding ?? 'identity').sort()).toEqual(['br', 'br', 'identity']);

    expect(await listener.uncompressed()).toEqual({ concurrency_cap: before['concurrency_cap']! + 1, cpu_budget: before['cpu_budget'] });
  });
});
