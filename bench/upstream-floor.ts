import { Registry } from 'prom-client';
import type { Dispatcher } from 'undici';
import { tallyCounter, tallyHistogram } from '../src/metrics.js';
import type { RequestInfo } from '../src/upstream/index.js';
import { recordCalls } from '../src/upstream/call-metrics.js';

/** What the upstream call benches (upstream-client.ts, upstream-machinery.ts) share: the floor they compare the client with, and production's metrics hook. */

/** One request through undici's dispatch, the body gathered and parsed: the floor any client on undici pays. */
export function dispatchJson(agent: Dispatcher, options: Dispatcher.DispatchOptions): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    agent.dispatch(options, {
      onRequestStart: () => {},
      onResponseStart: () => {},
      onResponseData: (_controller, chunk) => void chunks.push(chunk),
      onResponseEnd: () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))),
      onResponseError: (_controller, error) => reject(error),
    });
  });
}

/** The `onRequest` hook as services.ts builds it: a count and a duration per call, tallied. */
export function productionMetrics(): (info: RequestInfo) => void {
  const registers = [new Registry()];
  const counted = tallyCounter({ name: 'calls_total', help: 'calls', labelNames: ['service', 'route', 'status'] as const, registers });
  const durations = tallyHistogram({ name: 'call_seconds', help: 'calls', labelNames: ['service', 'route'], buckets: [0.005, 0.05, 0.5, 5], registers });
  return recordCalls({ calls: counted, durations });
}
