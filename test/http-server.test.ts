import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from '../src/http-server.js';
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
  });
});
