import { describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { ORIGIN, testClient, useMockAgent } from './helpers.js';

let agent: MockAgent;
useMockAgent((created) => (agent = created));

/** The call's answer is settled inside the dispatch handler's callback: a hook that throws there must still answer the caller. */
describe('HttpClient: a call whose onRequest hook throws', () => {
  it('rejects with the hook’s error rather than leaving its caller waiting, and a second identical call still gets the answer', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [] }).times(2);
    let throws = true;
    const { http } = testClient(agent, {
      onRequest: () => {
        if (throws) throw new Error('metrics broke');
      },
    });
    await expect(http.get('/v0/markets', { route: 'GET /v0/markets' })).rejects.toThrow('metrics broke');
    throws = false;
    await expect(http.get('/v0/markets', { route: 'GET /v0/markets' })).resolves.toEqual({ markets: [] });
  });
});

describe("HttpClient: a call's map", () => {
  it("hands each caller its own reading of one shared answer, and a map's throw is that caller's failure while the call is written down as answered", async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: ['a', 'b'] }).delay(20);
    const { http, calls } = testClient(agent);
    const route = 'GET /v0/markets';
    const [count, broken] = await Promise.allSettled([
      http.get('/v0/markets', { route, map: (raw: { markets: string[] }) => raw.markets.length }),
      http.get('/v0/markets', {
        route,
        map: () => {
          throw new Error('not a market list');
        },
      }),
    ]);
    expect(count).toEqual({ status: 'fulfilled', value: 2 });
    expect(broken).toMatchObject({ status: 'rejected', reason: { message: 'not a market list' } });
    expect(agent.getCallHistory()?.calls()).toHaveLength(1);
    expect(calls.map((c) => c.status)).toEqual([200, 200]);
  });
});
