import type { MockAgent } from 'undici';
import { describe, expect, it, vi } from 'vitest';
import { OperationDeadline } from '../../src/operation/index.js';
import { LISTEN_AFTER_MS } from '../../src/upstream/transport/cancel.js';
import { ORIGIN, testClient, useMockAgentAndClock } from './helpers.js';

/**
 * Identical GETs in flight share one call (transport/share.ts): a GET nobody joined settles its caller
 * directly, and a second caller joining it turns the first into one waiter among others. Each caller's
 * leaving ends its own wait; the call ends when no caller is left. Timers are faked: the test moves the clock.
 */

let agent: MockAgent;
useMockAgentAndClock((created) => (agent = created));

const markets = () => agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' });
const route = 'GET /v0/markets';
const dispatched = () => agent.getCallHistory()?.calls().length ?? 0;

describe('identical GETs in flight', () => {
  const withAbort = (controller: AbortController) => ({ scope: { signal: controller.signal }, leave: () => controller.abort() });
  // Two ways a first caller stops waiting: its client goes, or its deadline comes before the call's timeout.
  const LEAVING = [
    { how: 'leaves after a second joined', code: 'ABORTED', waits: 2 * LISTEN_AFTER_MS, first: () => withAbort(new AbortController()) },
    { how: "has a deadline before the call's timeout", code: 'DEADLINE', waits: 150, first: () => ({ scope: { deadline: new OperationDeadline(100) }, leave: () => {} }) },
  ];

  it.each(LEAVING)('a first caller that $how ends its own wait only: the caller who joined gets the answer of the one call', async ({ code, waits, first }) => {
    markets().reply(200, { markets: ['m'] }).delay(1_000);
    const { http, calls } = testClient(agent);
    const { scope, leave } = first();
    const leaving = http.get('/v0/markets', { route, scope }).catch((e: unknown) => e);
    const staying = http.get('/v0/markets', { route, scope: { signal: new AbortController().signal } });
    leave();
    await vi.advanceTimersByTimeAsync(waits);
    expect(await leaving).toMatchObject({ code });

    await vi.advanceTimersByTimeAsync(1_000);
    expect(await staying).toEqual({ markets: ['m'] });
    expect(dispatched()).toBe(1);
    expect(calls.map((c) => c.errorCode ?? c.status)).toEqual([code, 200]);
  });

  it('a caller alone that leaves ends the call: the next identical GET makes its own', async () => {
    markets().reply(200, { markets: ['late'] }).delay(60_000);
    markets().reply(200, { markets: ['again'] });
    const { http, calls } = testClient(agent, { timeoutMs: 120_000 });
    const alone = new AbortController();
    const leaving = http.get('/v0/markets', { route, scope: { signal: alone.signal } }).catch((e: unknown) => e);
    alone.abort();
    await vi.advanceTimersByTimeAsync(2 * LISTEN_AFTER_MS);
    expect(await leaving).toMatchObject({ code: 'ABORTED' });

    // Not joined: the ended call is no longer listed, so this one is answered by a call of its own.
    expect(await http.get('/v0/markets', { route })).toEqual({ markets: ['again'] });
    expect(dispatched()).toBe(2);
    expect(calls.map((c) => c.errorCode ?? c.status)).toEqual(['ABORTED', 200]);
  });

  it('a GET answered with nobody joining is unlisted: the same GET afterwards makes a new call', async () => {
    markets().reply(200, { markets: ['one'] });
    markets().reply(200, { markets: ['two'] });
    const { http } = testClient(agent);
    expect(await http.get('/v0/markets', { route })).toEqual({ markets: ['one'] });
    expect(await http.get('/v0/markets', { route })).toEqual({ markets: ['two'] });
    expect(dispatched()).toBe(2);
  });

  it("joins only the same caller's GET of the same path: another caller's, or another path, is a call of its own", async () => {
    markets().reply(200, { markets: ['m'] }).delay(100).times(2);
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets/other', method: 'GET' }).reply(200, { markets: [] }).delay(100);
    const { http } = testClient(agent);
    const ann = http.callerHeaders({ authorization: 'Bearer ann' });
    const bob = http.callerHeaders({ authorization: 'Bearer bob' });
    const reads = [
      http.get('/v0/markets', { route, headers: ann, caller: 'ann' }),
      http.get('/v0/markets/other', { route: 'GET /v0/markets/other', headers: ann, caller: 'ann' }),
      http.get('/v0/markets', { route, headers: bob, caller: 'bob' }),
      http.get('/v0/markets', { route, headers: ann, caller: 'ann' }),
    ];
    await vi.advanceTimersByTimeAsync(100);
    expect(await Promise.all(reads)).toEqual([{ markets: ['m'] }, { markets: [] }, { markets: ['m'] }, { markets: ['m'] }]);
    expect(dispatched()).toBe(3);
    const sent = agent.getCallHistory()!.calls().map((c) => `${c.path} ${(c.headers as Record<string, string>)['authorization']}`);
    expect(sent).toEqual(['/markets/v0/markets Bearer ann', '/markets/v0/markets/other Bearer ann', '/markets/v0/markets Bearer bob']);
  });
});
