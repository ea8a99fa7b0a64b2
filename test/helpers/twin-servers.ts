import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createHttpServer, withFastPath, type FastPath, type NodeHandler } from '../../src/node-http.js';
import type { TestGateway } from './gateway.js';
import { send as sendBytes, type Sent } from './hit-parity.js';

export type { Sent };

/** An answer's head with what differs between two identical answers normalized (Date, a generated request id, Retry-After's second), and its body. */
export interface Answer {
  head: string;
  status: number;
  body: Buffer;
}

/**
 * Two HTTP servers over one gateway: `pipeline` sends every request through Yoga; `direct` puts the
 * direct path (src/direct/) in front of it, as lifecycle.ts does. Counts what each path answered and
 * how many requests of the direct server entered Yoga.
 */
export function useTwinServers(gw: TestGateway) {
  const counts = { direct: 0, yogaBehindDirect: 0 };
  const servers: Server[] = [];
  beforeAll(async () => {
    const yoga: NodeHandler = (req, res) => gw.app.yoga(req, res);
    const intoYoga: NodeHandler = (req, res) => {
      counts.yogaBehindDirect++;
      return gw.app.yoga(req, res);
    };
    const counted = async (answered: boolean | Promise<boolean>) => {
      const done = await answered;
      if (done) counts.direct++;
      return done;
    };
    const direct: FastPath = (req, res, body) => counted(gw.app.direct!(req, res, body));
    // A body the direct path planned before is answered from its bytes, as lifecycle.ts wires it.
    const fromBytes = gw.app.direct!.fromBytes;
    if (fromBytes) direct.fromBytes = (req, res, bytes) => counted(fromBytes(req, res, bytes));
    servers.push(createHttpServer(yoga), createHttpServer(withFastPath(intoYoga, direct)));
    for (const server of servers) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  const port = (server: Server | undefined) => (server!.address() as AddressInfo).port;
  return {
    counts,
    pipeline: (sent: Sent) => send(port(servers[0]), sent),
    direct: (sent: Sent) => send(port(servers[1]), sent),
  };
}

/** One request on its own connection (hit-parity.ts `send`), its head normalized. */
export async function send(port: number, sent: Sent): Promise<Answer> {
  const whole = await sendBytes(port, sent);
  const end = whole.indexOf('\r\n\r\n');
  const head = whole
    .subarray(0, end)
    .toString('latin1')
    .replace(/\r\nDate: [^\r]+/, '\r\nDate: *')
    .replace(/\r\nx-request-id: [0-9a-f-]{36}/, '\r\nx-request-id: *')
    .replace(/\r\nretry-after: \d+/i, '\r\nretry-after: *')
    .replace(/\r\nlast-modified: [^\r]+/, '\r\nlast-modified: *');
  return { head, status: Number(head.split(' ')[1]), body: whole.subarray(end + 4) };
}
