import { describe, expect, it, vi } from 'vitest';
import type { Target } from '../../src/simulator/controls.js';
import { lastTrade, postWebhook, subscribeEvents } from '../events/helpers.js';
import type { GraphQLResponse } from '../helpers/gateway.js';
import { JUP, callsTo, hits, disconnectDuring, h, wallet, useDisconnectHarness } from '../helpers/disconnect-harness.js';

describe('a client that disconnects', () => {
  useDisconnectHarness();

  it('aborts the reads of an event when its subscriber goes away', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    const { stream, first } = await subscribeEvents(
      h.gw,
      'subscription { events { eventId ... on TokenLastTradePriceChangeEvent { wallet { totalValueUsd } } } }',
    );
    h.gw.sim.controls.setFault(target, { hang: true });
    await postWebhook(h.gw, { events: [lastTrade('left-1', wallet)] });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await stream.close();
    await first.catch(() => null);

    await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(1));
    expect(callsTo(h, target)[0]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    expect(hits(h, target)).toBe(1);
  });

  it('ends only its own wait: a second request for the same wallet gets its positions from the one call', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    // Two operations (not one run twice, which would share one execution): their identical reads share one call.
    const stays = h.post(`{ wallet(address: "${wallet}") { totalValueUsd positions(first: 1) { totalCount } } }`);
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await disconnectDuring(h, target, `{ wallet(address: "${wallet}") { positions(first: 2) { totalCount } } }`, 1);
    const answer = (await stays) as GraphQLResponse;

    expect(answer.errors).toBeUndefined();
    expect(answer.data!['wallet'].positions.totalCount).toBeGreaterThan(0);
    // The request that left stopped waiting; the call it shared went on for the one that stayed.
    expect(hits(h, target)).toBe(1);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual([200]);
  });

  it('ends a shared read once every request waiting on it has left', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    const first = new AbortController();
    const one = h.post(`{ wallet(address: "${wallet}") { totalValueUsd } }`, { signal: first.signal });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    await disconnectDuring(h, target, `{ wallet(address: "${wallet}") { positions(first: 2) { totalCount } } }`, 1);
    first.abort();
    expect(await one).toBe('disconnected');
    await vi.waitFor(() => expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual(['ABORTED']));
    expect(hits(h, target)).toBe(1);
  });

  it('leaves a shared asset fetch running: the request that stays gets the asset from the one call', async () => {
    const target: Target = { service: 'assets', route: 'GET /v0/assets/:id' };
    h.gw.sim.controls.setLatency(target, { fixedMs: 300 });
    // An asset no other test of this gateway loads: the shared cache holds no copy of it.
    const query = `{ asset(id: "${JUP}") { assetId symbol metadataSource } }`;

    const leaving = new AbortController();
    const left = h.post(query, { signal: leaving.signal });
    await vi.waitFor(() => expect(hits(h, target)).toBe(1));
    // The second request (another operation: the same one would share the first's execution) joins the
    // fetch in flight in the shared cache.
    const stays = h.post(query.replace('symbol', 'symbol __typename'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    leaving.abort();
    expect(await left).toBe('disconnected');

    const answer = (await stays) as GraphQLResponse;
    expect(answer.errors).toBeUndefined();
    expect(answer.data!['asset']).toEqual({ assetId: JUP, symbol: 'JUP', __typename: 'Asset', metadataSource: 'PRIMARY' });
    expect(hits(h, target)).toBe(1);
    expect(callsTo(h, target).map((c) => c.errorCode ?? c.status)).toEqual([200]);
  });

  it('many concurrent reads of one request share one listener on its signal (no MaxListenersExceededWarning) and all abort', async () => {
    const target: Target = { service: 'markets', route: 'GET /v0/positions/owners' };
    h.gw.sim.controls.setFault(target, { hang: true });
    // POSITIONS_BATCH_SIZE is 1: one call per wallet, 25 at once. In memory, as over WebSocket, the
    // request's signal is Node's own AbortSignal, which warns past 10 listeners.
    const wallets = h.gw.sim.world.wallets.slice(0, 25).map((w) => `"${w.address}"`);
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const client = new AbortController();
      const answer = Promise.resolve(h.gw.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ wallets(addresses: [${wallets.join(', ')}]) { totalValueUsd } }` }),
        signal: client.signal,
      }));
      await vi.waitFor(() => expect(hits(h, target)).toBe(25));
      client.abort();
      await answer.catch(() => undefined);
      await vi.waitFor(() => expect(callsTo(h, target)).toHaveLength(25));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(callsTo(h, target).filter((c) => c.errorCode === 'ABORTED')).toHaveLength(25);
    expect(warnings).toEqual([]);
  });
});
