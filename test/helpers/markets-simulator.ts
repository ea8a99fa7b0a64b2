import { afterAll, beforeAll, expect } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

/** The markets service of the embedded simulator (seed 42), called over HTTP. */

export let sim: Simulator;
export const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

export async function get<T = any>(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${sim.urls.markets}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export const qs = (params: Record<string, string | number>): string =>
  '?' + Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&');

export const ALL_STATUSES = JSON.stringify({ prediction: { status: ['open', 'closed', 'settled'] } });

export async function expect400(path: string): Promise<string> {
  const r = await get(path);
  expect(r.status, path).toBe(400);
  expect(typeof r.body.error).toBe('string');
  return r.body.error;
}

/** Starts the simulator for the file. */
export function useMarketsSimulator(): void {
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(async () => {
    await sim?.close();
  });
}
