import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from '../src/node-http.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

/** Sends `head` on a raw socket and then nothing more; resolves with what the server wrote before closing. */
async function stallAfter(port: number, head: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(head);
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  await once(socket, 'close');
  return received;
}

describe('the HTTP server', () => {
  it('sets request, header and keep-alive timeouts deliberately', () => {
    const server = createHttpServer(() => {});
    expect(server.requestTimeout).toBe(SERVER_TIMEOUTS.requestTimeoutMs);
    expect(server.headersTimeout).toBe(SERVER_TIMEOUTS.headersTimeoutMs);
    expect(server.keepAliveTimeout).toBe(SERVER_TIMEOUTS.keepAliveTimeoutMs);
    expect(SERVER_TIMEOUTS.requestTimeoutMs).toBeLessThan(300_000);
    expect(SERVER_TIMEOUTS.keepAliveTimeoutMs).toBeGreaterThan(60_000);
  });

  describe('with short timeouts', () => {
    let gw: TestGateway;
    let server: ReturnType<typeof createHttpServer>;
    let port: number;
    beforeAll(async () => {
      gw = await startTestGateway();
      server = createHttpServer(gw.app.yoga, { requestTimeoutMs: 400, headersTimeoutMs: 200, keepAliveTimeoutMs: 1000, checkIntervalMs: 50 });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gw.close();
    });

    it('answers 408 and closes a request whose body stops arriving', async () => {
      const head = 'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":';
      expect(await stallAfter(port, head)).toMatch(/^HTTP\/1\.1 408/);
    });

    it('answers 408 and closes a request whose headers stop arriving', async () => {
      expect(await stallAfter(port, 'GET /health HTTP/1.1\r\nHost: x\r\n')).toMatch(/^HTTP\/1\.1 408/);
    });

    it('keeps serving ordinary requests', async () => {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      expect(response.status).toBe(200);
    });

    /** A POST to /graphql on a raw socket; the status line and body of the answer. */
    async function post(headers: string, body: string): Promise<{ status: string; body: string }> {
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      socket.end(`POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept: application/json\r\n${headers}\r\n${body}`);
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      await once(socket, 'close');
      const status = received.slice(0, received.indexOf('\r\n'));
      const rest = received.slice(received.indexOf('\r\n\r\n') + 4);
      return { status, body: rest.includes('{') ? rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1) : rest };
    }

    // Small JSON bodies are read whole and parsed before Yoga (node-http.ts); every other body streams to it.
    it('answers a small JSON body, read whole, as Yoga would', async () => {
      const body = JSON.stringify({ query: '{ __typename }' });
      const answer = await post(`Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`, body);
      expect(answer.status).toBe('HTTP/1.1 200 OK');
      expect(JSON.parse(answer.body)).toEqual({ data: { __typename: 'Query' } });
    });

    it('answers a JSON body that arrives in two parts, after its headers', async () => {
      const body = JSON.stringify({ query: '{ __typename }' });
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
      socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
      // The first part is read (and the request begun) before the rest is sent.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(received).toBe('');
      socket.end(body.slice(5));
      await once(socket, 'close');
      expect(received).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(JSON.parse(received.slice(received.indexOf('{'), received.lastIndexOf('}') + 1))).toEqual({ data: { __typename: 'Query' } });
    });

    it('answers a JSON body larger than the stream buffer (40 KB), read whole', async () => {
      const body = JSON.stringify({ query: `{ __typename }${' '.repeat(40_000)}` });
      const answer = await post(`Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`, body);
      expect(answer.status).toBe('HTTP/1.1 200 OK');
      expect(JSON.parse(answer.body)).toEqual({ data: { __typename: 'Query' } });
    });

    it('answers both of two small JSON POSTs sent together on one connection', async () => {
      const ask = (name: string) => {
        const body = JSON.stringify({ query: `query ${name} { __typename }` });
        return `POST /graphql HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      };
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
        if (received.split('HTTP/1.1 200 OK').length === 3) socket.end();
      });
      socket.write(ask('First') + ask('Second'));
      await once(socket, 'close');
      expect(received.split('HTTP/1.1 200 OK').length).toBe(3);
      expect(received.match(/\{"data":\{"__typename":"Query"\}\}/g)).toHaveLength(2);
    });

    it('answers a chunked body (no Content-Length) and a body of another type as before', async () => {
      const body = JSON.stringify({ query: '{ __typename }' });
      const chunked = await post('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n', `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
      expect(chunked.status).toBe('HTTP/1.1 200 OK');
      expect(JSON.parse(chunked.body)).toEqual({ data: { __typename: 'Query' } });
      const raw = '{ __typename }';
      const graphql = await post(`Content-Type: application/graphql\r\nContent-Length: ${raw.length}\r\n`, raw);
      expect(graphql.status).toBe('HTTP/1.1 200 OK');
      expect(JSON.parse(graphql.body)).toEqual({ data: { __typename: 'Query' } });
    });

    it('refuses invalid JSON and a JSON body that is not an object with 400, as Yoga does', async () => {
      for (const body of ['{"query":', '42']) {
        const answer = await post(`Content-Type: application/json\r\nContent-Length: ${body.length}\r\n`, body);
        expect(answer.status, body).toMatch(/^HTTP\/1\.1 400/);
        expect(JSON.parse(answer.body).errors.length, body).toBeGreaterThan(0);
      }
    });

    // A 1 MiB URL is over Node's 16 KiB limit on the request line and headers.
    it('answers a 1 MiB GET URL with a readable 414 rather than a reset, by fetch() and on a raw socket', async () => {
      const url = `http://127.0.0.1:${port}/graphql?query=${'x'.repeat(1024 * 1024)}`;
      const answer = await fetch(url);
      expect(answer.status).toBe(414);
      expect(await answer.json()).toEqual({ error: 'request line (URL) too long' });

      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', (error) => (received += `[${(error as NodeJS.ErrnoException).code}]`));
      socket.write(`GET /graphql?query=${'x'.repeat(1024 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`);
      await once(socket, 'close');
      expect(received).toMatch(/^HTTP\/1\.1 414 URI Too Long\r\n/);
      expect(received).not.toContain('[ECONNRESET]');
    });

    it('answers headers over the limit with 431, and keeps serving', async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/health`, { headers: { 'x-large': 'y'.repeat(64 * 1024) } });
      expect(answer.status).toBe(431);
      expect(await answer.json()).toEqual({ error: 'request headers too large' });
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    });
  });
});
