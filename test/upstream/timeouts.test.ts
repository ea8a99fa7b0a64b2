import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CallBudget, OperationDeadline } from '../../src/operation/index.js';
import { createAgent, createHttpClient, UpstreamError } from '../../src/upstream/http.js';

// One timer serves all of a client's calls (transport/timeout.ts): each call still ends at its own time,
// in the order the calls started, and answered calls in between are neither ended nor held.

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** `/slow*` never answers; anything else answers `{}` at once. Counts the requests it saw. */
async function listen(): Promise<{ base: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    if (req.url?.startsWith('/slow')) return;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const codeOf = (promise: Promise<unknown>) => promise.then(() => 'answered', (error: unknown) => (error instanceof UpstreamError ? (error.code ?? error.kind) : String(error)));

describe('the per-call timeout, one timer per client', () => {
  it('ends hanging calls started at different times in the order they started, while the calls between them are answered', async () => {
    const { base, seen } = await listen();
    const agent = createAgent();
    // Long enough that an answered call never meets it on a busy machine.
    const http = createHttpClient({ service: 'markets', baseUrl: base, agent, breaker: false, retry: false, timeoutMs: 2_000 });
    const ended: string[] = [];
    /** How long each hanging call ran: never less than its timeout (a lower bound, which a busy machine only lengthens). */
    const ran: number[] = [];
    const timed = (name: string, path: string) => {
      const started = performance.now();
      return codeOf(http.get(path)).then((code) => (ended.push(name), ran.push(performance.now() - started), code));
    };
    const first = timed('slow 1', '/slow/1');
    // Many answered calls between the two hanging ones: the line of waiting calls is compacted meanwhile.
    const answered: string[] = [];
    for (let batch = 0; batch < 10; batch++) {
      answered.push(...(await Promise.all(Array.from({ length: 8 }, (_, i) => codeOf(http.get(`/fast/${batch}/${i}`))))));
    }
    expect(new Set(answered)).toEqual(new Set(['answered']));
    const second = timed('slow 2', '/slow/2');
    expect(await Promise.all([first, second])).toEqual(['ETIMEDOUT', 'ETIMEDOUT']);
    expect(ended).toEqual(['slow 1', 'slow 2']);
    for (const ms of ran) expect(ms).toBeGreaterThanOrEqual(2_000 - 1);
    expect(seen.filter((url) => url.startsWith('/slow'))).toEqual(['/slow/1', '/slow/2']);
    // The client still answers after its timer went idle.
    expect(await codeOf(http.get('/fast/after'))).toBe('answered');
    http.close();
    await agent.destroy();
  });

  it("ends a call at its operation's deadline when that comes before its own timeout (DEADLINE, not ETIMEDOUT)", async () => {
    const { base } = await listen();
    const agent = createAgent();
    const http = createHttpClient({ service: 'markets', baseUrl: base, agent, breaker: false, retry: false, timeoutMs: 60_000 });
    const scope = { deadline: new OperationDeadline(100), budget: new CallBudget(10) };
    expect(await codeOf(http.get('/slow/deadline', { scope }))).toBe('DEADLINE');
    // Its calls share one timer: each ends there, a POST (never shared) as well as a GET.
    const operation = { deadline: new OperationDeadline(150), budget: new CallBudget(10) };
    const started = performance.now();
    const codes = await Promise.all([codeOf(http.get('/slow/a', { scope: operation })), codeOf(http.post('/slow/b', { scope: operation })), codeOf(http.get('/fast/c', { scope: operation }))]);
    expect(codes).toEqual(['DEADLINE', 'DEADLINE', 'answered']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150 - 1);
    http.close();
    await agent.destroy();
  });
});
