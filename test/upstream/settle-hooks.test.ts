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
