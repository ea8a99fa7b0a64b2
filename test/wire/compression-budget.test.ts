import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Admission, requestsWaiting } from '../../src/admission.js';
import { CompressionBudget, compressionTime } from '../../src/plugins/compression-budget.js';
import { compress, compressionEffort, CompressionSlots } from '../../src/plugins/compression.js';

/** A process driven by hand: its clock, its loop's utilisation, its CPU, the compression time and the requests waiting. */
function process_(initial: { utilisation?: number; waiting?: number } = {}) {
  const state = { at: 0, utilisation: initial.utilisation ?? 0, cpu: 0, spent: 0, waiting: initial.waiting ?? 0 };
  const budget = new CompressionBudget({
    busyShare: 0.05,
    now: () => state.at,
    utilisation: () => state.utilisation,
    cpu: () => state.cpu,
    spent: () => state.spent,
    waiting: () => state.waiting,
  });
  /** Compressions the budget allows now, each taking `ms`, up to `max`. */
  const allowed = (ms: number, max = 100) => {
    let n = 0;
    while (n < max && budget.allows()) {
      n += 1;
      state.spent += ms;
    }
    return n;
  };
  /** One window of `cpuMs` of the process's CPU passes. */
  const window = (cpuMs: number) => {
    state.at += 100;
    state.cpu += cpuMs;
  };
  return { state, budget, allowed, window };
}

describe('compression budget', () => {
  it('allows every compression while the loop has spare time, however long they take', () => {
    const p = process_({ utilisation: 0.5, waiting: 10 });
    p.window(100);
    expect(p.allowed(2)).toBe(100);
  });

  it('allows every compression while nobody waits for a turn, even with a saturated loop', () => {
    const p = process_({ utilisation: 1, waiting: 0 });
    p.window(100);
    expect(p.allowed(2)).toBe(100);
  });

  it('on a saturated process with requests waiting, compresses within its share (5 % here) of the CPU of the last window', () => {
    const p = process_({ utilisation: 0.95, waiting: 30 });
    p.window(100);
    // 5 ms of the 100 ms of CPU: five compressions of 1 ms, the sixth sent as it is.
    expect(p.allowed(1)).toBe(5);
    expect(p.budget.allows()).toBe(false);
    // A process that got 40 ms of its core in the next window: 2 ms.
    p.window(40);
    expect(p.allowed(1)).toBe(2);
    // Nobody waits any more: every compression is allowed again at once.
    p.state.waiting = 0;
    expect(p.allowed(1, 10)).toBe(10);
  });

  it('scales a long window to one window, so a long stretch without compressions buys no burst of them', () => {
    const p = process_({ utilisation: 0.95, waiting: 30 });
    // Ten windows' time and CPU since the last decision: still 5 ms, not 50.
    p.state.at += 1_000;
    p.state.cpu += 1_000;
    expect(p.allowed(1)).toBe(5);
  });

  it('lets small answers, cheap to compress, through more often than large ones', () => {
    const p = process_({ utilisation: 0.95, waiting: 30 });
    p.window(100);
    expect(p.allowed(0.25)).toBe(20);
    p.window(100);
    expect(p.allowed(2.5)).toBe(2);
  });

  it('judges saturation over the last whole window: spare time in it restores compression', () => {
    const p = process_({ utilisation: 0.95, waiting: 30 });
    p.window(100);
    p.allowed(1);
    expect(p.budget.allows()).toBe(false);
    p.state.utilisation = 0.6;
    // Within the same window the judgement stands; the next one reads the spare time.
    p.state.at += 50;
    expect(p.budget.allows()).toBe(false);
    p.window(60);
    expect(p.allowed(1)).toBe(100);
  });
});

describe('compression slots under the budget', () => {
  it('sends an answer as it is when the budget refuses, taking no slot', () => {
    const p = process_({ utilisation: 0.95, waiting: 30 });
    p.window(100);
    expect(p.allowed(5)).toBe(1);
    const slots = new CompressionSlots(2, p.budget);
    expect(slots.tryStart(() => Promise.resolve(1))).toBeNull();
    expect(slots.running).toBe(0);
    p.state.waiting = 0;
    expect(slots.tryStart(() => Promise.resolve(1))).not.toBeNull();
  });

  it('counts the time compress() takes into the process-wide compression time', async () => {
    const body = Buffer.from(JSON.stringify(Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `market ${i}` }))));
    const before = compressionTime();
    await compress(body, compressionEffort('br', body.length, false));
    await compress(body, compressionEffort('gzip', body.length, false));
    expect(compressionTime()).toBeGreaterThan(before);
  });
});

describe('requests waiting for their turn', () => {
  it('counts the requests every admission of the process holds in its queue, until they start', async () => {
    const base = requestsWaiting();
    const admission = new Admission({ perTurn: 1, maxInFlight: 100, maxQueued: 100 }, () => {});
    for (let i = 0; i < 3; i++) {
      const res = Object.assign(new EventEmitter(), { destroyed: false, socket: null }) as unknown as ServerResponse;
      admission.admit({ url: '/graphql', method: 'POST', headers: {} } as IncomingMessage, res);
    }
    expect(requestsWaiting() - base).toBe(3);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(requestsWaiting() - base).toBe(2);
    for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
    expect(requestsWaiting() - base).toBe(0);
  });
});
