import { EventEmitter, once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Admission, counted, DEFAULT_ADMISSION, frontDoor, TURN_BUDGET_MS } from '../src/admission.js';
import { loadConfig } from '../src/config.js';
import { createHttpServer, type NodeHandler } from '../src/node-http.js';
import { startTestGateway } from './helpers/gateway.js';

const MARKETS = '{ markets(first: 1) { edges { node { marketId } } } }';
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A request and response as Node's listener gets them, enough for the admission's bookkeeping. */
function exchange(url = '/graphql'): { req: IncomingMessage; res: ServerResponse } {
  const res = Object.assign(new EventEmitter(), { destroyed: false, socket: null });
  return { req: { url, method: 'POST', headers: {} } as IncomingMessage, res: res as unknown as ServerResponse };
}

describe('admission in front of Yoga', () => {
  it('starts one request per turn of the event loop, never in the listener, in order', async () => {
    const started: number[] = [];
    const admission = new Admission({ perTurn: 1, maxInFlight: 100, maxQueued: 100 }, (req) => void started.push(Number(req.url!.split('=')[1])));
    for (let i = 0; i < 4; i++) {
      const { req, res } = exchange(`/graphql?i=${i}`);
      admission.admit(req, res);
    }
    expect(started).toEqual([]);
    expect(admission.queued).toBe(4);
    await nextTurn();
    expect(started).toEqual([0]);
    await nextTurn();
    expect(started).toEqual([0, 1]);
    await nextTurn();
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3]);
    expect(admission.queued).toBe(0);
  });

  it('starts a batch of light requests in one turn, and a heavy one alone once its start took the turn budget', async () => {
    const started: number[] = [];
    let clock = 0;
    const cost = [0.1, 0.1, TURN_BUDGET_MS, 0.1, 0.1];
    // A count cap above the five requests: only the turn's budget can hold any of them back.
    const admission = new Admission({ ...DEFAULT_ADMISSION, perTurn: 10, maxQueued: 100 }, (req) => {
      const i = Number(req.url!.split('=')[1]);
      started.push(i);
      clock += cost[i]!;
    }, () => clock);
    for (let i = 0; i < cost.length; i++) {
      const { req, res } = exchange(`/graphql?i=${i}`);
      admission.admit(req, res);
    }
    await nextTurn();
    // The third start spends what is left of the turn: the rest wait for the next.
    expect(started).toEqual([0, 1, 2]);
    await nextTurn();
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('starts a request admitted at the check phase in that turn when it was expected (its body read first)', async () => {
    const started: number[] = [];
    const admission = new Admission({ ...DEFAULT_ADMISSION, maxQueued: 100 }, (req) => void started.push(Number(req.url!.split('=')[1])));
    // As node-http.ts does: the body's read is scheduled, then the admission told a request is on its way.
    const first = exchange('/graphql?i=0');
    setImmediate(() => admission.admit(first.req, first.res));
    admission.expect();
    await nextTurn();
    expect(started).toEqual([0]);
    // Not expected: admitted at the check phase, it starts in the loop's next turn.
    const second = exchange('/graphql?i=1');
    setImmediate(() => admission.admit(second.req, second.res));
    await nextTurn();
    expect(started).toEqual([0]);
    await nextTurn();
    expect(started).toEqual([0, 1]);
  });

  it('holds requests past the in-flight cap until one is answered, and drops one whose client went away', async () => {
    const handler = vi.fn();
    const admission = new Admission({ perTurn: 10, maxInFlight: 2, maxQueued: 10 }, handler);
    const exchanges = Array.from({ length: 4 }, () => exchange());
    for (const { req, res } of exchanges) admission.admit(req, res);
    await nextTurn();
    expect(handler).toHaveBeenCalledTimes(2);
    expect([admission.inFlight, admission.queued]).toEqual([2, 2]);
    // The third request's client leaves while it waits: the fourth takes the free place.
    Object.assign(exchanges[2]!.res, { destroyed: true });
    exchanges[0]!.res.emit('close');
    await nextTurn();
    expect(handler).toHaveBeenCalledTimes(3);
    expect(handler.mock.calls[2]![0]).toBe(exchanges[3]!.req);
    expect([admission.inFlight, admission.queued]).toEqual([2, 0]);
  });

  it('reads its limits from the environment, refusing a queue of none', () => {
    expect(loadConfig({}).admission).toEqual(DEFAULT_ADMISSION);
    expect(loadConfig({ ADMISSION_PER_TURN: '4', MAX_INFLIGHT_REQUESTS: '32', MAX_QUEUED_REQUESTS: '64' }).admission).toEqual({ perTurn: 4, maxInFlight: 32, maxQueued: 64 });
    expect(() => loadConfig({ MAX_QUEUED_REQUESTS: '0' })).toThrow(/MAX_QUEUED_REQUESTS/);
  });

  it('counts GraphQL requests, not event streams, probes, metrics or webhooks', () => {
    const request = (url: string, accept = 'application/json') => ({ url, headers: { accept } }) as IncomingMessage;
    expect(counted(request('/graphql'))).toBe(true);
    expect(counted(request('/graphql?query=%7Ba%7D'))).toBe(true);
    expect(counted(request('/graphql', 'multipart/mixed, application/json'))).toBe(true);
    expect(counted(request('/graphql', 'text/event-stream'))).toBe(false);
    expect(counted(request('/graphql/stream?query=x'))).toBe(false);
    for (const url of ['/health', '/ready', '/metrics', '/webhooks/events']) expect(counted(request(url))).toBe(false);
  });
});

describe('the front door over HTTP', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  async function listen(handler: Parameters<typeof createHttpServer>[0]): Promise<string> {
    server = createHttpServer(handler);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const post = (base: string) => fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ a }"}' });

  it('answers /health while every execution is held, and 503 with Retry-After past the queue', async () => {
    const held: ServerResponse[] = [];
    const registry = new Registry();
    const door = frontDoor((_req, res) => void held.push(res), { perTurn: 1, maxInFlight: 2, maxQueued: 1 }, registry);
    const base = await listen(door);
    const first = [post(base), post(base), post(base)];
    await vi.waitFor(() => expect([door.admission.inFlight, door.admission.queued]).toEqual([2, 1]), { timeout: 10_000 });

    const refused = await post(base);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    const body = (await refused.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(body.errors[0]!.extensions).toEqual({ code: 'RATE_LIMITED', reason: 'OVERLOADED', retryAfterSeconds: 1 });
    expect(door.admission.refused).toBe(1);
    const metrics = await registry.metrics();
    for (const line of ['gateway_admission_in_flight 2', 'gateway_admission_queued 1', 'gateway_admission_refused_total 1']) expect(metrics).toContain(`\n${line}\n`);

    const health = await fetch(`${base}/health`, { headers: { 'x-request-id': 'probe-7' } });
    expect(health.status).toBe(200);
    expect(health.headers.get('x-request-id')).toBe('probe-7');
    expect(held).toHaveLength(2);

    // Answering one lets the queued request in.
    held[0]!.end('{}');
    await vi.waitFor(() => expect(held).toHaveLength(3), { timeout: 10_000 });
    for (const res of held.slice(1)) res.end('{}');
    expect((await Promise.all(first)).map((r) => r.status)).toEqual([200, 200, 200]);
    expect(door.admission.inFlight).toBe(0);
  });

  it('serves the gateway through it: /health without Yoga, GraphQL as before', async () => {
    const gw = await startTestGateway();
    try {
      const yoga = vi.fn<NodeHandler>((req, res) => gw.app.yoga(req, res));
      const base = await listen(frontDoor(yoga));
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(yoga).not.toHaveBeenCalled();
      const answer = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: MARKETS }) });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { data: { markets: { edges: unknown[] } } }).data.markets.edges).toHaveLength(1);
      expect((await fetch(`${base}/ready`)).status).toBe(200);
      expect(yoga).toHaveBeenCalledTimes(2);
    } finally {
      await gw.close();
    }
  });
});
