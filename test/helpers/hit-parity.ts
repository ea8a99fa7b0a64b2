import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from '../../src/node-http.js';
import type { TestGateway } from './gateway.js';

/**
 * Raw HTTP requests to two servers over one gateway, one with the fast path for hits and one without,
 * and their answers compared byte for byte (the Date line, a generated X-Request-Id and the age figures
 * aside, checked on their own): test/response-cache/hit-path*.test.ts.
 */
export interface Sent {
  method?: 'GET' | 'POST';
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  headers?: Record<string, string>;
}

/** One GraphQL request on its own connection; the answer's raw bytes. */
export async function send(port: number, { method = 'POST', query, variables, operationName, headers = {} }: Sent): Promise<Buffer> {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  if (method === 'GET') {
    const search = new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}), ...(operationName ? { operationName } : {}) });
    return sendRaw(port, `GET /graphql?${search.toString()} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${lines}\r\n`);
  }
  return sendRaw(port, rawPost(JSON.stringify({ query, variables, operationName }), lines));
}

/** A JSON POST to /graphql of this body, with these header lines, on a connection the server closes. */
export function rawPost(body: string, lines = ''): string {
  return `POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${lines}\r\n${body}`;
}

/** A raw request on its own connection (kept open until the server closes it: `Connection: close`); the answer's raw bytes. */
export async function sendRaw(port: number, raw: string): Promise<Buffer> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(raw);
  await once(socket, 'close');
  return Buffer.concat(chunks);
}

export interface Parts {
  head: string;
  body: Buffer;
  age: number | null;
  maxAge: number | null;
}

/** The head with the lines that differ between two identical answers normalized, and the body's bytes. */
export function parts(raw: Buffer, sentId: boolean): Parts {
  const end = raw.indexOf('\r\n\r\n');
  let head = raw.subarray(0, end).toString('latin1');
  const age = /\r\nage: (\d+)/.exec(head)?.[1];
  const maxAge = /max-age=(\d+)/.exec(head)?.[1];
  head = head.replace(/\r\nDate: [^\r]+/, '\r\nDate: *').replace(/\r\nage: \d+/, '\r\nage: *').replace(/max-age=\d+/, 'max-age=*');
  if (!sentId) head = head.replace(/\r\nx-request-id: [0-9a-f-]{36}/, '\r\nx-request-id: *');
  return { head, body: raw.subarray(end + 4), age: age === undefined ? null : Number(age), maxAge: maxAge === undefined ? null : Number(maxAge) };
}

/** A hit's Cache-Control counts down what Age counts up: together they make the TTL. */
export function expectSameAnswer({ viaPipeline, viaFast }: { viaPipeline: Parts; viaFast: Parts }) {
  expect(viaFast.head).toBe(viaPipeline.head);
  expect(viaFast.body.equals(viaPipeline.body)).toBe(true);
  if (viaFast.age !== null) expect(viaFast.age + viaFast.maxAge!).toBe(viaPipeline.age! + viaPipeline.maxAge!);
}

export const portOf = (server: Server) => (server.address() as AddressInfo).port;

/** The two servers over `gw` for the enclosing file or block, and how many requests the fast path answered. */
export function useParityServers(gw: TestGateway) {
  const servers = { plain: undefined as unknown as Server, fast: undefined as unknown as Server, answeredFast: 0 };
  beforeAll(async () => {
    const hits = gw.app.hits!;
    servers.plain = createHttpServer(gw.app.yoga);
    servers.fast = createHttpServer(gw.app.yoga, SERVER_TIMEOUTS, (req, res, body) => {
      const answered = hits(req, res, body);
      const count = (done: boolean) => ((servers.answeredFast += done ? 1 : 0), done);
      return answered instanceof Promise ? answered.then(count) : count(answered);
    });
    for (const server of [servers.plain, servers.fast]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const server of [servers.plain, servers.fast]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  /** The same raw request through the pipeline and then through the fast path; both answers, and whether the fast path answered. */
  const bothRaw = async (raw: string, sentId = false) => {
    const before = servers.answeredFast;
    const viaPipeline = parts(await sendRaw(portOf(servers.plain), raw), sentId);
    const viaFast = parts(await sendRaw(portOf(servers.fast), raw), sentId);
    return { viaPipeline, viaFast, fast: servers.answeredFast - before === 1 };
  };
  return { servers, bothRaw };
}
