import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { MAX_OPERATIONS_PER_SOCKET } from '../../src/ws.js';
import type { RequestInfo } from '../../src/upstream/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { SOL, startEventsGateway } from './helpers.js';
import { type Listening, listen, warningsDuring, rawSocket } from '../helpers/ws-sockets.js';

describe('GraphQL over WebSocket: operations that are still running', () => {
  const SOL_ID = `solana:${SOL}`;
  const positions = { service: 'markets', route: 'GET /v0/positions/owners' } as const;
  const asset = { service: 'assets', route: 'GET /v0/assets/:id' } as const;
  let gw: TestGateway;
  let server: Listening;
  const calls: RequestInfo[] = [];
  const ended = (route: string) => calls.filter((call) => call.route === route);

  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    // Deadlines far beyond these tests: a call that ends was ended by an abort.
    gw = await startEventsGateway({
      sim,
      config: { upstreamTimeoutMs: 60_000, assetsTimeoutMs: 60_000 },
      upstream: { onRequest: (info) => calls.push(info) },
    });
    server = await listen(gw);
  });
  afterAll(async () => {
    await server?.close();
    // The simulator cuts the calls still hanging; then the upstream pool can close.
    await sim?.close();
    await gw?.close();
  });

  it("aborts a query's upstream reads when the client completes it, and the rest when the socket closes", async () => {
    const wallet = gw.sim.world.demoWallets[0]!;
    gw.sim.controls.setFault(positions, { hang: true });
    const socket = await rawSocket(server.url);
    const query = `{ wallet(address: "${wallet}") { totalValueUsd } }`;

    socket.send({ id: 'a', type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(positions.service, positions.route)).toBe(1));
    socket.send({ id: 'a', type: 'complete' });
    await vi.waitFor(() => expect(ended('GET /v0/positions/owners')).toHaveLength(1));
    expect(ended('GET /v0/positions/owners')[0]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    // The socket stays open for the next operation.
    socket.send({ id: 'b', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await socket.answer('b')).toMatchObject({ type: 'next', payload: { data: { __typename: 'Query' } } });

    socket.send({ id: 'c', type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(positions.service, positions.route)).toBe(2));
    socket.close();
    await vi.waitFor(() => expect(ended('GET /v0/positions/owners')).toHaveLength(2));
    expect(ended('GET /v0/positions/owners')[1]).toMatchObject({ errorCode: 'ABORTED', attempts: 1 });
    gw.sim.controls.reset();
  });

  it('holds nothing per finished operation on a long-lived socket: 1,600 queries, no listener-leak warning', async () => {
    const warnings = await warningsDuring(async () => {
      const socket = await rawSocket(server.url);
      // Node warns once a signal holds more than 1,500 abort listeners: a Request per operation on the
      // socket's own signal added one each, released only when garbage-collected.
      for (let batch = 0; batch < 32; batch++) {
        const ids = Array.from({ length: 50 }, (_, i) => `t${batch}-${i}`);
        for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: '{ __typename }' } });
        for (const answer of await Promise.all(ids.map((id) => socket.answer(id)))) expect(answer.type).toBe('next');
      }
      socket.close();
    });
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('does not count operations refused before they run: 2 × the cap of ambiguous documents, then a query runs', async () => {
    const socket = await rawSocket(server.url);
    const ambiguous = 'query A { __typename } query B { __typename }';
    // In batches: operations being prepared count too, and one chunk of messages arrives all at once.
    for (let batch = 0; batch < 4; batch++) {
      const ids = Array.from({ length: MAX_OPERATIONS_PER_SOCKET / 2 }, (_, i) => `x${batch}-${i}`);
      for (const id of ids) socket.send({ id, type: 'subscribe', payload: { query: ambiguous } });
      for (const answer of await Promise.all(ids.map((id) => socket.answer(id)))) {
        expect(answer).toMatchObject({ type: 'error', payload: [{ extensions: { code: expect.stringMatching(/BAD_USER_INPUT|OPERATION_RESOLUTION_FAILURE/) } }] });
      }
    }
    socket.send({ id: 'named', type: 'subscribe', payload: { query: ambiguous, operationName: 'Missing' } });
    expect(await socket.answer('named')).toMatchObject({ type: 'error', payload: [{ extensions: { code: expect.stringMatching(/BAD_USER_INPUT|OPERATION_RESOLUTION_FAILURE/) } }] });
    socket.send({ id: 'ok', type: 'subscribe', payload: { query: ambiguous, operationName: 'B' } });
    expect(await socket.answer('ok')).toMatchObject({ type: 'next', payload: { data: { __typename: 'Query' } } });
    socket.close();
  });

  it('counts an operation the client completed until its execution ends: subscribe-then-complete does not lift the cap', async () => {
    // The asset cache's fetch is shared with other requests: a client's abort does not end it.
    gw.sim.controls.setFault(asset, { hang: true });
    const socket = await rawSocket(server.url);
    const query = `{ asset(id: "${SOL_ID}") { symbol } }`;
    for (let i = 0; i < MAX_OPERATIONS_PER_SOCKET; i++) socket.send({ id: `q${i}`, type: 'subscribe', payload: { query } });
    await vi.waitFor(() => expect(gw.sim.controls.count(asset.service, asset.route)).toBe(1));
    for (let i = 0; i < MAX_OPERATIONS_PER_SOCKET; i++) socket.send({ id: `q${i}`, type: 'complete' });

    // Messages are handled in order: the completes came first, and the 100 still run.
    socket.send({ id: 'next', type: 'subscribe', payload: { query: '{ __typename }' } });
    const refused = await socket.answer('next');
    expect(refused).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'RATE_LIMITED' } }] });
    // Reusing the id of an operation still running is refused too: one entry must not stand for two.
    socket.send({ id: 'q0', type: 'subscribe', payload: { query: '{ __typename }' } });
    expect(await socket.answer('q0')).toMatchObject({ type: 'error', payload: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
    expect(gw.sim.controls.count(asset.service, asset.route)).toBe(1);
    socket.close();
  });
});
