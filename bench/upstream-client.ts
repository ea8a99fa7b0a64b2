/**
 * CPU of one upstream call: undici alone against the gateway's HTTP client (`createHttpClient`: its
 * breaker, retry, timeout, sharing, lanes, cancel, ledger, budget and deadline, with the production
 * metrics hook), GETs against a node server in a child process (its CPU is not counted) that answers a
 * ~2 KB JSON object. Prints the gateway process's CPU µs per call (process.cpuUsage) for each kind,
 * the kinds alternating within each round so that a busy machine weighs on all of them alike:
 *
 *   node --import tsx bench/upstream-client.ts [calls] [rounds] [kind,kind...]
 *
 * (naming kinds runs only those: `--cpu-prof` a single kind to see where its time goes).
 *
 * - undici dispatch: `agent.dispatch` with a handler that gathers the body and parses it (what the
 *   gateway's innermost step does, nothing around it);
 * - undici request: `agent.request()` and `body.json()`, as a hand-written BFF calls;
 * - bare: the gateway's client, no scope (a store's detached call), distinct paths;
 * - scoped: an operation's scope (signal, deadline, budget), distinct paths;
 * - credentials: scoped, with a per-caller `authorization` header (an alerts call);
 * - shared: scoped, 8 identical GETs at once (one upstream call, 8 waiters).
 *
 * The gateway's own machinery per call is a gateway kind less `undici dispatch`.
 */
import { median } from './numbers.js';
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { CallBudget, OperationDeadline } from '../src/operation/index.js';
import { createAgent, createHttpClient, type GetOptions } from '../src/upstream/http.js';
import { dispatchJson, productionMetrics } from './upstream-floor.js';

if (process.argv[2] === 'serve') {
  const body = JSON.stringify({
    markets: Array.from({ length: 16 }, (_, i) => ({ id: `market-${i}`, type: 'lending', apy: 0.0421 + i, tvl: 1234567.89, token: 'solana:So11111111111111111111111111111111111111112' })),
  });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0, bytes: Buffer.byteLength(body) });
  });
} else {
  const calls = Number(process.argv[2] ?? 20_000);
  const rounds = Number(process.argv[3] ?? 5);
  const concurrency = 8;

  const child = fork(new URL(import.meta.url), ['serve'], { execArgv: ['--import', 'tsx'] });
  const { port, bytes } = await new Promise<{ port: number; bytes: number }>((resolve) => child.once('message', resolve as never));
  const origin = `http://127.0.0.1:${port}`;
  const agent = createAgent();
  const http = createHttpClient({ service: 'markets', baseUrl: `${origin}/markets`, agent, timeoutMs: 5_000, onRequest: productionMetrics() });
  const headers = { accept: 'application/json' };

  const scope = () => ({ signal: new AbortController().signal, deadline: new OperationDeadline(10_000), budget: new CallBudget(1e9) });
  const all: Record<string, (i: number) => Promise<unknown>> = {
    'undici dispatch': (i) => dispatchJson(agent, { origin, path: `/markets/v0/markets/${i}`, method: 'GET', headers }),
    'undici request': (i) => agent.request({ origin, path: `/markets/v0/markets/${i}`, method: 'GET', headers }).then((r) => r.body.json()),
    bare: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}' }),
    scoped: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope: scope() }),
    credentials: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope: scope(), headers: { authorization: `Bearer token-${i % 50}` } }),
    shared: (i) => http.get(`/v0/markets/${Math.floor(i / concurrency)}`, { route: 'GET /v0/markets/{id}', scope: scope() } satisfies GetOptions),
  };
  const chosen = process.argv[4]?.split(',');
  const kinds = chosen ? Object.fromEntries(Object.entries(all).filter(([name]) => chosen.includes(name))) : all;

  /** `n` calls, `concurrency` at a time; returns CPU µs per call. */
  async function run(call: (i: number) => Promise<unknown>, n: number): Promise<number> {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i += concurrency) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(n, i + concurrency); j++) batch.push(call(j));
      await Promise.all(batch);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / n;
  }

  console.log(`${calls} GETs per kind and round, ${concurrency} at a time, ${bytes} byte bodies, node ${process.version}`);
  for (const call of Object.values(kinds)) await run(call, 2_000); // warm-up
  const results: Record<string, number[]> = {};
  for (let r = 0; r < rounds; r++) {
    for (const [name, call] of Object.entries(kinds)) (results[name] ??= []).push(await run(call, calls));
  }
  const undici = results['undici dispatch'] ? median(results['undici dispatch']) : 0;
  for (const [name, values] of Object.entries(results)) {
    const sorted = [...values].sort((a, b) => a - b);
    const own = name.startsWith('undici') ? '' : `  own machinery ≈ ${(median(values) - undici).toFixed(1)}`;
    console.log(
      `${name.padEnd(16)} median ${median(values).toFixed(1)}  min ${sorted[0]!.toFixed(1)} µs/call${own}  (${values.map((v) => v.toFixed(1)).join(', ')})`,
    );
  }
  http.close();
  await agent.close();
  child.kill();
}
