import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS, type FastPath } from '../../src/node-http.js';
import { useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { expectSameAnswer, parts, portOf, rawPost, sendRaw } from '../helpers/hit-parity.js';

/**
 * A screen sends the same body on every request: the fast path for hits remembers a body it answered
 * and reads the next request of the same bytes without parsing them (src/fast-path/bodies.ts), and
 * writes a hit's head through Node's own writeHead (src/fast-path/head.ts). Both answer exactly what
 * the pipeline answers, on keep-alive connections as on closing ones.
 */
const ORIGIN = 'https://app.example.com';
const SMALL = '{ markets(first: 2) { edges { node { marketId } } } }';
const NAMED = 'query Page($first: Int) { markets(first: $first) { edges { node { marketId } } } }';
const VIEWER = '{ viewer { id channels { key value verified } } }';

const gw: TestGateway = useTestGateway({ config: { responseCache: true, corsOrigins: [ORIGIN] } });
let plain: Server;
let fast: Server;
const answered = { parsed: 0, bytes: 0 };

beforeAll(async () => {
  const hits = gw.app.hits!;
  const count = (kind: 'parsed' | 'bytes') => (done: boolean) => ((answered[kind] += done ? 1 : 0), done);
  const path: FastPath = (req, res, body) => {
    const done = hits(req, res, body);
    return done instanceof Promise ? done.then(count('parsed')) : count('parsed')(done);
  };
  path.fromBytes = (req, res, bytes) => {
    const done = hits.fromBytes!(req, res, bytes);
    return done instanceof Promise ? done.then(count('bytes')) : count('bytes')(done);
  };
  plain = createHttpServer(gw.app.yoga);
  fast = createHttpServer(gw.app.yoga, SERVER_TIMEOUTS, path);
  for (const server of [plain, fast]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const server of [plain, fast]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A JSON POST on a keep-alive connection (no `Connection: close`). */
const keptPost = (body: string, lines = '') => `POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${lines}\r\n${body}`;

/** Raw writes one after another on one keep-alive connection, each followed by `answersEach` answers; each answer's raw bytes (read to its Content-Length). */
async function onOneConnection(port: number, raws: string[], answersEach = 1): Promise<Buffer[]> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let pending = Buffer.alloc(0);
  let wake = () => {};
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    wake();
  });
  const answers: Buffer[] = [];
  try {
    for (const raw of raws) {
      socket.write(raw);
      for (let read = 0; read < answersEach; ) {
        const end = pending.indexOf('\r\n\r\n');
        const length = end < 0 ? null : Number(/\r\ncontent-length: (\d+)/i.exec(pending.subarray(0, end).toString('latin1'))?.[1] ?? 0);
        if (length !== null && pending.length >= end + 4 + length) {
          answers.push(pending.subarray(0, end + 4 + length));
          pending = pending.subarray(end + 4 + length);
          read++;
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  } finally {
    socket.destroy();
  }
  return answers;
}

describe('a hit read from its body bytes', () => {
  const cases: [string, string, string][] = [
    ['a public page', JSON.stringify({ query: SMALL }), ''],
    ['variables and an operation name', JSON.stringify({ query: NAMED, variables: { first: 3 }, operationName: 'Page' }), ''],
    // Other bytes than the first case's, the same key: empty variables are no variables.
    ['an allowed origin', JSON.stringify({ query: SMALL, variables: {} }), `Origin: ${ORIGIN}\r\n`],
    ["the caller's own entry", JSON.stringify({ query: VIEWER }), 'VIEWER'],
  ];

  for (const [name, body, given] of cases) {
    it(`answers ${name} on a keep-alive connection as the pipeline does, the body parsed only on its first hit`, async () => {
      const lines = given === 'VIEWER' ? Object.entries(gw.viewerHeaders).map(([header, value]) => `${header}: ${value}\r\n`).join('') : given;
      const raw = keptPost(body, lines);
      const viaPipeline = (await onOneConnection(portOf(plain), [raw, raw, raw])).map((answer) => parts(answer, false));
      const before = { ...answered };
      const viaFast = (await onOneConnection(portOf(fast), [raw, raw, raw])).map((answer) => parts(answer, false));
      // The first hit parses the body and remembers it; the next two are found by their bytes.
      expect(answered.parsed - before.parsed).toBe(1);
      expect(answered.bytes - before.bytes).toBe(2);
      for (const i of [1, 2]) {
        expect(viaFast[i]!.head).toMatch(/\r\nConnection: keep-alive\r\nKeep-Alive: timeout=\d+$/);
        expectSameAnswer({ viaPipeline: viaPipeline[i]!, viaFast: viaFast[i]! });
      }
    });
  }

  it('answers the same bytes on a closing connection as the pipeline does', async () => {
    const raw = rawPost(JSON.stringify({ query: SMALL }), 'Accept: application/graphql-response+json\r\n');
    await sendRaw(portOf(plain), raw);
    await sendRaw(portOf(fast), raw);
    const before = answered.bytes;
    const [viaPipeline, viaFast] = [parts(await sendRaw(portOf(plain), raw), false), parts(await sendRaw(portOf(fast), raw), false)];
    expect(answered.bytes - before).toBe(1);
    expect(viaFast.head).toMatch(/\r\nConnection: close$/);
    expectSameAnswer({ viaPipeline, viaFast });
  });

  it("keys the remembered bytes by the headers' caller: another caller's token gets nothing of the first's", async () => {
    const body = JSON.stringify({ query: VIEWER });
    const mine = Object.entries(gw.viewerHeaders).map(([header, value]) => `${header}: ${value}\r\n`).join('');
    await onOneConnection(portOf(fast), [keptPost(body, mine), keptPost(body, mine)]);
    const before = answered.bytes;
    const other = `authorization: Bearer someone-else\r\nx-service-client-key: ${gw.viewerHeaders['x-service-client-key']}\r\n`;
    const [answer] = await onOneConnection(portOf(fast), [keptPost(body, other)]);
    expect(answered.bytes).toBe(before);
    expect(answer!.toString()).not.toContain(gw.sim.alerts.demo.token);
  });

  it('answers pipelined requests in their order, each whole', async () => {
    const body = JSON.stringify({ query: NAMED, variables: { first: 1 }, operationName: 'Page' });
    const ids = ['first', 'second', 'third'];
    await onOneConnection(portOf(fast), [keptPost(body), keptPost(body)]);
    const before = answered.bytes;
    const answers = await onOneConnection(portOf(fast), [ids.map((id) => keptPost(body, `X-Request-Id: ${id}\r\n`)).join('')], ids.length);
    expect(answered.bytes - before).toBe(3);
    expect(answers.map((answer) => /\r\nx-request-id: (\w+)/.exec(answer.toString('latin1'))?.[1])).toEqual(ids);
    const [one, ...rest] = answers.map((answer) => parts(answer, true));
    for (const other of rest) expect(other.body.equals(one!.body)).toBe(true);
  });

  it('leaves bytes it knows to the pipeline when the headers ask for an execution', async () => {
    const raw = keptPost(JSON.stringify({ query: SMALL }));
    await onOneConnection(portOf(fast), [raw, raw]);
    const before = { ...answered };
    const [answer] = await onOneConnection(portOf(fast), [keptPost(JSON.stringify({ query: SMALL }), 'Cache-Control: no-cache\r\n')]);
    expect(answered).toEqual(before);
    expect(parts(answer!, false).head).toMatch(/^HTTP\/1\.1 200 OK/);
  });
});
