import { describe, expect, it } from 'vitest';
import { sim, demo, call, subHeaders, asDemo, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

describe('subscriber authentication', () => {
  const endpoints: [string, string][] = [
    ['GET', '/v2/auth'],
    ['GET', '/v2/channels'],
    ['POST', '/v2/channel/email/prepare'],
    ['POST', '/v2/channel/email/verify'],
    ['POST', '/v2/channel/email/resend'],
    ['POST', '/v2/channel/email/delete'],
    ['POST', '/v2/channel/telegram/prepare'],
    ['POST', '/v2/channel/telegram/delete'],
    ['POST', '/v2/push/subscribe'],
    ['POST', '/v2/push/unsubscribe'],
    ['GET', '/v2/apps'],
    ['POST', '/v2/subscribe'],
    ['POST', '/v2/unsubscribe'],
    ['GET', '/v2/history'],
    ['GET', '/v2/history/summary'],
    ['POST', '/v2/history/read'],
    ['POST', '/v2/history/clear'],
  ];

  it('GET /v2/auth answers the wallet of the token', async () => {
    const r = await asDemo('GET', '/v2/auth');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ walletAddress: demo.walletAddress });
    const other = [...sim.alerts.subscribers.values()][5]!;
    const r2 = await call('GET', '/v2/auth', subHeaders(other.token, sim.alerts.clientKeys[1]));
    expect(r2.json).toEqual({ walletAddress: other.walletAddress });
  });

  it.each(endpoints)('%s %s: 401 without a token, with a bad token, without or with a bad client key', async (method, path) => {
    const noToken = await call(method, path, { 'x-service-client-key': demo.clientKey });
    const badToken = await call(method, path, subHeaders(`${demo.token}x`));
    const notBearer = await call(method, path, { authorization: demo.token, 'x-service-client-key': demo.clientKey });
    const noClient = await call(method, path, { authorization: `Bearer ${demo.token}` });
    const badClient = await call(method, path, subHeaders(demo.token, 'nope'));
    for (const r of [noToken, badToken, notBearer, noClient, badClient]) {
      expect(r.status).toBe(401);
      if (r.text) expect(typeof r.json.error).toBe('string');
    }
  });
});
