import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { DemoCredentials } from '../../src/simulator/alerts/index.js';

/**
 * The alerts service of the embedded simulator, called over HTTP as the gateway's client calls it: the
 * demo subscriber's and the demo app's credentials, and the data reset before each test.
 */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export let sim: Simulator;
export let demo: DemoCredentials;

export interface Answer {
  status: number;
  text: string;
  json: any;
}

export async function call(method: string, path: string, headers: Record<string, string> = {}, body?: unknown): Promise<Answer> {
  const res = await fetch(`${sim.urls.alerts}${path}`, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json };
}

export const subHeaders = (token = demo.token, clientKey = demo.clientKey): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  'x-service-client-key': clientKey,
});
export const asDemo = (method: string, path: string, body?: unknown) => call(method, path, subHeaders(), body);
export const asSub = (wallet: string, method: string, path: string, body?: unknown) =>
  call(method, path, subHeaders(sim.alerts.subscribers.get(wallet)!.token), body);
export const appHeaders = (apiKey = demo.apiKey, extra: Record<string, string> = {}) => ({ 'x-service-api-key': apiKey, ...extra });
export const send = (body: unknown, extra: Record<string, string> = {}, appId = demo.appId, apiKey = demo.apiKey) =>
  call('POST', `/v2/${appId}/send`, appHeaders(apiKey, extra), body);

export function validSend(overrides: Record<string, unknown> = {}, message: Record<string, unknown> = {}) {
  return {
    channels: ['IN_APP'],
    message: { title: 'Hello', body: 'World', ...message },
    recipient: { type: 'subscriber', walletAddress: demo.walletAddress },
    ...overrides,
  };
}

export async function allHistory(path = '/v2/history', limit = 7) {
  const ids: string[] = [];
  const timestamps: string[] = [];
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await asDemo('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(r.status).toBe(200);
    expect(r.json.limit).toBe(limit);
    expect(r.json.alerts.length).toBeLessThanOrEqual(limit);
    for (const a of r.json.alerts) {
      ids.push(a.id);
      timestamps.push(a.timestamp);
    }
    cursor = r.json.cursor;
    pages++;
    if (pages > 100) throw new Error('paging does not end');
  } while (cursor);
  return { ids, timestamps, pages };
}

/** Starts the simulator (seed 1234) for the file and resets the alerts data before each test. */
export function useAlertsSimulator(): void {
  beforeAll(async () => {
    sim = await startSimulator({ seed: 1234 });
    demo = sim.alerts.demo;
  });

  afterAll(async () => {
    await sim?.close();
  });

  beforeEach(() => {
    sim.alerts.reset();
  });
}
