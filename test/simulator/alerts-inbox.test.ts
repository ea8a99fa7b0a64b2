import { describe, expect, it } from 'vitest';
import { UUID, sim, demo, asDemo, allHistory, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

describe('inbox', () => {
  it('answers a page of the unified inbox with summary, limit and cursor', async () => {
    const r = await asDemo('GET', '/v2/history');
    expect(r.status).toBe(200);
    expect(r.json.limit).toBe(10);
    expect(r.json.alerts).toHaveLength(10);
    expect(typeof r.json.cursor).toBe('string');
    expect(typeof r.json.summary.unreadCount).toBe('number');
    const a = r.json.alerts[0];
    expect(a).toMatchObject({ id: expect.any(String), timestamp: expect.any(String), title: expect.any(String), body: expect.any(String) });
    expect(new Date(a.timestamp).toISOString()).toBe(a.timestamp);
    expect(a.app).toMatchObject({ id: expect.stringMatching(UUID), name: expect.any(String) });
    expect(typeof a.read).toBe('boolean');
    expect((await asDemo('GET', '/v2/history?limit=20')).json.alerts).toHaveLength(20);
    expect((await asDemo('GET', '/v2/history?limit=1')).json.alerts).toHaveLength(1);
  });

  it.each(['0', '21', '-1', 'abc', '1.5'])('rejects limit=%s with 400', async (limit) => {
    const r = await asDemo('GET', `/v2/history?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.json.error).toBeDefined();
  });

  it('rejects a bad cursor and a bad appId with 400', async () => {
    expect((await asDemo('GET', '/v2/history?cursor=garbage')).status).toBe(400);
    expect((await asDemo('GET', '/v2/history?appId=nope')).status).toBe(400);
    expect((await asDemo('GET', '/v2/history/summary?appId=nope')).status).toBe(400);
  });

  it('pages to the end newest first with no duplicates', async () => {
    const d = sim.alerts.subscribers.get(demo.walletAddress)!;
    const subscribed = new Set([...d.apps].filter(([, s]) => s.size > 0).map(([id]) => id));
    const expected = d.inbox.filter((a) => subscribed.has(a.appId)).length;
    expect(expected).toBeGreaterThan(45);
    const { ids, timestamps, pages } = await allHistory();
    expect(ids).toHaveLength(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(expected / 7));
    expect([...timestamps].sort().reverse()).toEqual(timestamps);
  });

  it('filters by appId', async () => {
    const d = sim.alerts.subscribers.get(demo.walletAddress)!;
    const expected = d.inbox.filter((a) => a.appId === demo.appId).length;
    const { ids } = await allHistory(`/v2/history?appId=${demo.appId}`, 20);
    expect(ids).toHaveLength(expected);
    const r = await asDemo('GET', `/v2/history?appId=${demo.appId}&limit=20`);
    for (const a of r.json.alerts) expect(a.app.id).toBe(demo.appId);
  });

  it('read and clear change unreadCount and the listing', async () => {
    const s0 = await asDemo('GET', '/v2/history/summary');
    expect(s0.status).toBe(200);
    expect(s0.json.unreadCount).toBeGreaterThan(0);
    expect((await asDemo('GET', '/v2/history')).json.summary).toEqual(s0.json);

    const perApp = (await asDemo('GET', `/v2/history/summary?appId=${demo.appId}`)).json.unreadCount as number;
    expect(perApp).toBeGreaterThan(0);
    const read1 = await asDemo('POST', '/v2/history/read', { appId: demo.appId });
    expect(read1.status).toBe(200);
    expect(read1.json).toEqual({});
    const s1 = (await asDemo('GET', `/v2/history/summary?appId=${demo.appId}`)).json;
    expect(s1.unreadCount).toBe(0);
    expect(typeof s1.lastRead.timestamp).toBe('string');
    expect((await asDemo('GET', '/v2/history/summary')).json.unreadCount).toBe(s0.json.unreadCount - perApp);

    const beforeClear = (await allHistory()).ids.length;
    const clear1 = await asDemo('POST', '/v2/history/clear', { appId: [demo.appId] });
    expect(clear1.status).toBe(200);
    expect(clear1.json).toEqual({});
    expect((await allHistory(`/v2/history?appId=${demo.appId}`)).ids).toHaveLength(0);
    const afterClear = (await allHistory()).ids.length;
    expect(afterClear).toBeLessThan(beforeClear);

    expect((await asDemo('POST', '/v2/history/read')).status).toBe(200);
    expect((await asDemo('GET', '/v2/history/summary')).json.unreadCount).toBe(0);
    expect((await asDemo('POST', '/v2/history/clear', {})).status).toBe(200);
    const empty = await asDemo('GET', '/v2/history');
    expect(empty.json.alerts).toHaveLength(0);
    expect(empty.json.cursor ?? null).toBeNull();

    expect((await asDemo('POST', '/v2/history/read', { appId: 'x' })).status).toBe(400);
    expect((await asDemo('POST', '/v2/history/clear', { appId: ['x'] })).status).toBe(400);
  });

  it('route ordering: /v2/history/summary is not /v2/:appId/subscribers', async () => {
    const r = await asDemo('GET', '/v2/history/summary');
    expect(r.status).toBe(200);
    expect(r.json).not.toHaveProperty('subscribers');
  });
});
