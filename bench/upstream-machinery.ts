/**
 * The gateway's own per-call machinery alone: the HTTP client (`createHttpClient`) over an in-process
 * dispatcher that answers every request at once with the same ~2 KB JSON body, against a bare
 * `dispatch` to that dispatcher with a handler that gathers and parses the body. No socket, no
 * server: what is left is what the client adds to undici. CPU µs per call, kinds alternating per round:
 *
 *   node --import tsx bench/upstream-machinery.ts [calls] [rounds] [kind,kind...]
 *
 * Before the timings it counts, for each kind, the promises and timers made per call (an async hook
 * on 1,000 calls): figures that do not move with the machine's load, unlike the CPU per call.
 *
 * bench/upstream-client.ts measures the same kinds against a real server.
 */
import { median } from './numbers.js';
import { createHook } from 'node:async_hooks';
import { Dispatcher } from 'undici';
import { CallBudget, OperationDeadline } from '../src/operation/index.js';
import { createHttpClient } from '../src/upstream/http.js';
import { dispatchJson, productionMetrics } from './upstream-floor.js';

const BODY = Buffer.from(
  JSON.stringify({
    markets: Array.from({ length: 16 }, (_, i) => ({ id: `market-${i}`, type: 'lending', apy: 0.0421 + i, tvl: 1234567.89, token: 'solana:So11111111111111111111111111111111111111112' })),
  }),
);
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) };

/** Answers each request on the next turn of the event loop, as a socket's read would arrive. */
class Answering extends Dispatcher {
  override dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const controller = { abort() {}, pause() {}, resume() {}, aborted: false, paused: false, reason: null } as unknown as Dispatcher.DispatchController;
    setImmediate(() => {
      handler.onRequestStart?.(controller, {});
      handler.onResponseStart?.(controller, 200, HEADERS, 'OK');
      handler.onResponseData?.(controller, BODY);
      handler.onResponseEnd?.(controller, {});
    });
    return true;
  }
  override close(): Promise<void> {
    return Promise.resolve();
  }
  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}

const calls = Number(process.argv[2] ?? 50_000);
const rounds = Number(process.argv[3] ?? 5);
const concurrency = 8;
const agent = new Answering();
const origin = 'http://127.0.0.1:1';
const http = createHttpClient({ service: 'markets', baseUrl: `${origin}/markets`, agent, timeoutMs: 5_000, onRequest: productionMetrics() });

/** One operation's scope (and caller's headers) per `concurrency` calls, as a screen's few calls share their request's. */
let operations = 0;
let callerHeaders: Readonly<Record<string, string>> = {};
let caller = '';
let scope = newScope();
function newScope() {
  // As the alerts client calls: the caller's headers merged once, the caller named by its key.
  callerHeaders = http.callerHeaders({ authorization: `Bearer token-${(operations += 1)}` });
  caller = `caller-${operations}`;
  return { signal: new AbortController().signal, deadline: new OperationDeadline(10_000), budget: new CallBudget(1e9), requestId: 'r' };
}
const all: Record<string, (i: number) => Promise<unknown>> = {
  dispatch: (i) => dispatchJson(agent, { origin, path: `/markets/v0/markets/${i}`, method: 'GET', headers: { accept: 'application/json' } }),
  bare: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}' }),
  scoped: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope }),
  credentials: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope, headers: callerHeaders, caller }),
};
const chosen = process.argv[4]?.split(',');
const kinds = chosen ? Object.fromEntries(Object.entries(all).filter(([name]) => chosen.includes(name))) : all;

async function run(call: (i: number) => Promise<unknown>, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i += concurrency) {
    scope = newScope();
    const batch: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(n, i + concurrency); j++) batch.push(call(j));
    await Promise.all(batch);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}


/** Promises and timers made per call of `kind`, over 1,000 calls made as the timed runs make them. */
async function countPerCall(call: (i: number) => Promise<unknown>): Promise<string> {
  const made: Record<string, number> = { PROMISE: 0, Timeout: 0 };
  const hook = createHook({
    init(_id, type) {
      if (type in made) made[type]! += 1;
    },
  }).enable();
  const n = 1_000;
  await run(call, n);
  hook.disable();
  return `${(made.PROMISE! / n).toFixed(1)} promises, ${(made.Timeout! / n).toFixed(2)} timers a call`;
}

for (const call of Object.values(kinds)) await run(call, 5_000);
for (const [name, call] of Object.entries(kinds)) console.log(`${name.padEnd(12)} ${await countPerCall(call)}`);
console.log(`${calls} GETs per kind and round, ${concurrency} at a time (one operation's scope each ${concurrency}), node ${process.version}`);
const results: Record<string, number[]> = {};
for (let r = 0; r < rounds; r++) for (const [name, call] of Object.entries(kinds)) (results[name] ??= []).push(await run(call, calls));
const floor = results.dispatch ? median(results.dispatch) : 0;
for (const [name, values] of Object.entries(results)) {
  const own = name === 'dispatch' ? '' : `  own machinery ≈ ${(median(values) - floor).toFixed(1)}`;
  console.log(`${name.padEnd(12)} median ${median(values).toFixed(1)} µs/call${own}  (${values.map((v) => v.toFixed(1)).join(', ')})`);
}
http.close();
