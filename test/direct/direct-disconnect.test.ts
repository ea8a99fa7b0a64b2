import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { frontDoor } from '../../src/admission.js';
import { createHttpServer, withFastPath, type FastPath, type NodeHandler } from '../../src/node-http.js';
import type { RequestInfo } from '../../src/upstream/index.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Far beyond any wait of this test: a call that ends sooner was ended by the client's abort. */
const DEADLINE_MS = 60_000;
const QUERY = '{ viewer { walletAddress } }';
const AUTH = { service: 'alerts', route: 'GET /v2/auth' } as const;

/**
 * A client that goes away while the direct path (src/direct/) executes its request cuts the request's
 * upstream reads short, as the pipeline's request signal does: behind the admission, whose one 'close'
 * listener aborts it, as lifecycle.ts serves; and without one.
 */
describe('the direct path, a client that disconnects', () => {
  let gw: TestGateway;
  const calls: RequestInfo[] = [];
  const servers = new Map<string, Server>();
  let direct = 0;

  beforeAll(async () => {
    gw = await startTestGateway({
      config: { upstreamTimeoutMs: DEADLINE_MS },
      upstream: { onRequest: (info) => calls.push(info) },
    });
    const yoga: NodeHandler = (req, res) => gw.app.yoga(req, res);
    const fromBytes = gw.app.direct!.fromBytes!;
    const counted: FastPath = (req, res, body) => gw.app.direct!(req, res, body);
    counted.fromBytes = (req, res, bytes) => {
      const answered = fromBytes(req, res, bytes);
      if (answered === true) direct++;
      return answered;
    };
    servers.set('behind the admission', createHttpServer(frontDoor(withFastPath(yoga, counted))));
    servers.set('without an admission', createHttpServer(withFastPath(yoga, counted)));
    for (const server of servers.values()) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const server of servers.values()) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await gw?.close();
  });
  afterEach(() => {
    gw.sim.controls.reset();
    gw.sim.controls.setRandom(Math.random);
  });

  const post = (server: Server, signal?: AbortSignal) =>
    fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...gw.viewerHeaders },
      body: JSON.stringify({ query: QUERY }),
      signal: signal ?? null,
    });

  it.each(['behind the admission', 'without an admission'])('%s: the hanging read ends ABORTED once the client is gone', async (name) => {
    const server = servers.get(name)!;
    // The pipeline runs a document first; the direct path takes it once validated and compiled.
    for (let i = 0; i < 2; i++) expect((await post(server)).status).toBe(200);
    gw.sim.controls.reset();
    calls.length = 0;
    const before = direct;

    gw.sim.controls.setRandom(() => 0);
    gw.sim.controls.setFault(AUTH, { hang: true, rate: 0.5 });
    const client = new AbortController();
    const answer = post(server, client.signal).catch(() => 'disconnected');
    // The wait is for an order of events, not a speed: a busy machine may take seconds to reach the call.
    await vi.waitFor(() => expect(gw.sim.controls.count(AUTH.service, AUTH.route)).toBe(1), { timeout: 30_000 });
    client.abort();
    expect(await answer).toBe('disconnected');

    await vi.waitFor(() => expect(calls.filter((c) => c.route === AUTH.route)).toHaveLength(1), { timeout: 30_000 });
    expect(calls.filter((c) => c.route === AUTH.route)[0]).toMatchObject({ errorKind: 'UNAVAILABLE', errorCode: 'ABORTED', attempts: 1 });
    expect(direct - before).toBe(1);
  });
});
