import { describe, expect, it } from 'vitest';
import { createAlertsState } from '../../src/simulator/alerts/index.js';
import { UUID, sim, demo, call, subHeaders, asDemo, useAlertsSimulator } from '../helpers/alerts-simulator.js';

useAlertsSimulator();

describe('generated data', () => {
  it('is deterministic from the seed and uses the given wallets', () => {
    const wallets = sim.world.wallets.map((w) => w.address);
    const a = createAlertsState(99, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    const b = createAlertsState(99, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    expect(a.demo).toEqual(b.demo);
    expect([...a.subscribers.values()].map((s) => s.inbox.map((x) => x.id))).toEqual(
      [...b.subscribers.values()].map((s) => s.inbox.map((x) => x.id)),
    );
    const c = createAlertsState(100, wallets, { anchorMs: Date.UTC(2025, 9, 20) });
    expect(c.demo.token).not.toBe(a.demo.token);
    expect(a.subscribers.size).toBeGreaterThanOrEqual(50);
    for (const w of a.subscribers.keys()) expect(wallets).toContain(w);
  });

  it('has apps with UUIDs and distinct api keys, client keys and a rich demo subscriber', () => {
    const st = sim.alerts;
    expect(st.apps.length).toBeGreaterThanOrEqual(8);
    expect(new Set(st.apps.map((a) => a.apiKey)).size).toBe(st.apps.length);
    for (const app of st.apps) expect(app.id).toMatch(UUID);
    expect(st.clientKeys).toContain('demo-client-key');
    expect(demo.clientKey).toBe('demo-client-key');
    expect(st.appByApiKey(demo.apiKey)?.id).toBe(demo.appId);
    const d = st.subscribers.get(demo.walletAddress)!;
    expect(d.token).toBe(demo.token);
    expect(d.token.split('.')).toHaveLength(3);
    expect(d.inbox.length).toBeGreaterThan(45);
    expect(d.channels.get('EMAIL')?.type).toBe('EMAIL');
    expect(d.channels.get('TELEGRAM')?.type).toBe('EMAIL');
    const subs = [...st.subscribers.values()];
    expect(subs.filter((s) => s.inbox.length > 45).length).toBeGreaterThan(3);
    expect(subs.some((s) => s.channels.get('DISCORD')?.type === 'DISCORD')).toBe(true);
    expect(subs.some((s) => s.channels.get('TELEGRAM')?.type === 'TELEGRAM')).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.actions?.some((x) => x.context)))).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.image))).toBe(true);
    expect(subs.some((s) => s.inbox.some((a) => a.data))).toBe(true);
  });

  it('lists some channels without subscribedApps and one unknown channel type', async () => {
    let missing = 0;
    let unknown = 0;
    for (const s of sim.alerts.subscribers.values()) {
      const r = await call('GET', '/v2/channels', subHeaders(s.token));
      expect(r.status).toBe(200);
      for (const [key, ch] of Object.entries<Record<string, unknown>>(r.json)) {
        if (!('subscribedApps' in ch)) missing++;
        if (key === 'DISCORD' && ch['type'] === 'DISCORD') unknown++;
      }
    }
    expect(missing).toBeGreaterThan(0);
    expect(unknown).toBeGreaterThan(0);
  });

  it('reset() restores the initial data', async () => {
    const before = sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length;
    await asDemo('POST', '/v2/history/read', {});
    await asDemo('POST', '/v2/history/clear', {});
    await asDemo('POST', '/v2/channel/email/delete');
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length).toBeLessThan(before);
    sim.alerts.reset();
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.inbox.length).toBe(before);
    expect(sim.alerts.subscribers.get(demo.walletAddress)!.channels.has('EMAIL')).toBe(true);
    expect(sim.alerts.deliveries).toHaveLength(0);
  });
});
