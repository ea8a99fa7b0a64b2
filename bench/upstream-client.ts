/**
 * CPU of the upstream HTTP client per call: GETs through `createHttpClient` (breaker, retry and sharing
 * on, as `src/serve.ts` builds it) against a node server in a child process (its CPU is not counted)
 * that answers a ~2 KB JSON object. Prints the gateway process's CPU µs per call (process.cpuUsage)
 * for each kind of call:
 *
 *   npx tsx bench/upstream-client.ts [calls] [rounds]
 *
 * - bare: no scope (a store's detached call), distinct paths;
 * - scoped: an operation's scope (signal, deadline, budget), distinct paths;
 * - credentials: scoped, with a per-caller `authorization` header (an alerts call);
 * - shared: scoped, 8 identical GETs at once (one upstream call, 8 waiters).
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { createAgent, createHttpClient, type GetOptions } from '../src/upstream/http.js';
import { CallBudget, OperationDeadline } from '../src/operation/index.js';

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
  const rounds = Number(process.argv[3] ?? 3);
  const concurrency = 8;

  const child = fork(new URL(import.meta.url), ['serve'], { execArgv: ['--import', 'tsx'] });
  const { port, bytes } = await new Promise<{ port: number; bytes: number }>((resolve) => child.once('message', resolve as never));
  const agent = createAgent();
  const http = createHttpClient({ service: 'markets', baseUrl: `http://127.0.0.1:${port}/markets`, agent, timeoutMs: 5_000 });

  const scope = () => ({ signal: new AbortController().signal, deadline: new OperationDeadline(10_000), budget: new CallBudget(1e9) });
  const kinds: Record<string, (i: number) => Promise<unknown>> = {
    bare: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}' }),
    scoped: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope: scope() }),
    credentials: (i) => http.get(`/v0/markets/${i}`, { route: 'GET /v0/markets/{id}', scope: scope(), headers: { authorization: `Bearer token-${i % 50}` } }),
    shared: (i) => http.get(`/v0/markets/${Math.floor(i / concurrency)}`, { route: 'GET /v0/markets/{id}', scope: scope() } satisfies GetOptions),
  };

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
  for (const [name, values] of Object.entries(results)) {
    const sorted = [...values].sort((a, b) => a - b);
    // The least of the rounds is the steadiest figure on a shared machine; the median is printed beside it.
    console.log(
      `${name.padEnd(12)} min ${sorted[0]!.toFixed(1)}  median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(1)} µs/call  (${values.map((v) => v.toFixed(1)).join(', ')})`,
    );
  }
  http.close();
  await agent.close();
  child.kill();
}
