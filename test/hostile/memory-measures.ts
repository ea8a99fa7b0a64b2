import type { App } from '../../src/app.js';
import { getHeapStatistics } from 'node:v8';

/** What memory-scenarios.ts measures with: the heap after a full GC, a request's status, a RESULT line. */
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx test/hostile/memory-scenarios.ts');
  process.exit(1);
}
export const MiB = 1024 * 1024;
export const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export async function post(app: App, query: string | undefined, extensions?: Record<string, unknown>): Promise<number> {
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, extensions }),
  });
  await response.arrayBuffer();
  return response.status;
}

export function result(scenario: string, retainedBytes: number): void {
  console.log(`RESULT ${JSON.stringify({ scenario, retainedBytes, heapLimitBytes: getHeapStatistics().heap_size_limit })}`);
}

export const countArg = (fallback: number) => Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? fallback);
export const statusLine = (statuses: Map<number, number>) => [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
export const tally = (statuses: Map<number, number>, status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

export const SECRET = 'memory-script-secret';
