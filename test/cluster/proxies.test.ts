import type { Server } from 'node:http';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/plugins/events-webhook.js';
import { createHttpServer } from '../../src/node-http.js';
import { signatureHeaders } from '../../src/simulator/events/sign.js';
import { priceChange } from '../events/helpers.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, requireBinary, startProcess, stopProcess, type StartedProcess } from '../helpers/processes.js';

/**
 * The gateway behind the real proxies, as deployed: the shipped deploy/nginx.conf (its upstream names
 * pointed at a gateway on loopback) and an HAProxy with `option forwardfor`. Clients are told apart by
 * their own loopback addresses (127.0.0.2, 127.0.0.3 ...), as distinct hosts would be.
 */
const FILE = 'test/cluster/proxies.test.ts';
const haveNginx = requireBinary(FILE, 'nginx', ['-v'], 'apt-get install nginx');
const haveHaproxy = requireBinary(FILE, 'haproxy', ['-v'], 'apt-get install haproxy');
const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'proxy-test-secret';
const LIMIT = 2;

let gw: TestGateway;
let server: Server;
let gatewayPort: number;
beforeAll(async () => {
  // The proxies reach the gateway from 127.0.0.1: it believes their X-Forwarded-For, nobody else's (the
  // clients come from other loopback addresses).
  gw = await startTestGateway({ config: { rateLimitPerMinute: LIMIT, trustedProxies: { ranges: ['127.0.0.1/32'] }, webhookSecret: SECRET } });
  server = createHttpServer(gw.app.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  gatewayPort = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await gw.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP request from the client host `from` (a loopback address of its own). */
function send(port: number, from: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits (up to 5 s) until the gateway answers /health through the proxy on `port`. */
async function untilHealthy(port: number): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if ((await send(port, '127.0.0.1', 'GET', '/health', {}).catch(() => null))?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing answered /health through port ${port}`);
}

const ask = (port: number, from: string, headers: Record<string, string> = {}) =>
  send(port, from, 'POST', '/graphql', { 'content-type': 'application/json', ...headers }, JSON.stringify({ query: '{ __typename }' }));

/** What both proxies must do for the rate limit: clients counted apart, a forger still one client. */
function countsRealClients(port: () => number, [a, b]: [string, string]) {
  it('counts two anonymous clients apart, and a client forging X-Forwarded-For as itself', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await ask(port(), a)).status).toBe(200);
    // b has a budget of its own although both arrive from the proxy's address.
    expect((await ask(port(), b)).status).toBe(200);
    // a, past its budget, forges the header: the proxy appends a's real address, which the gateway reads.
    for (let i = 0; i < 3; i++) expect((await ask(port(), a, { 'x-forwarded-for': `192.0.2.${i + 10}` })).status).toBe(429);
    expect((await ask(port(), b, { 'x-forwarded-for': '192.0.2.99' })).status).toBe(200);
  });
}

describe.runIf(haveNginx)('through the shipped nginx config', () => {
  let nginx: StartedProcess;
  let port: number;
  let prefix: string;
  beforeAll(async () => {
    port = await freePort();
    prefix = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
    mkdirSync(join(prefix, 'logs'));
    const shipped = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8');
    const config = shipped.replace(/server\s+gateway-\d+:\d+/g, `server 127.0.0.1:${gatewayPort}`).replace(/listen\s+8080;/, `listen 127.0.0.1:${port};`);
    expect(config).not.toBe(shipped);
    writeFileSync(join(prefix, 'nginx.conf'), config);
    nginx = await startProcess(
      'nginx',
      ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', `daemon off; user root; pid ${prefix}/nginx.pid; error_log ${prefix}/error.log;`],
      null,
      { cwd: prefix },
    );
    await untilHealthy(port);
  });
  afterAll(async () => {
    await stopProcess(nginx.child);
    rmSync(prefix, { recursive: true, force: true });
  });

  countsRealClients(() => port, ['127.0.0.2', '127.0.0.3']);

  it('delivers an 8 MiB signed webhook batch', async () => {
    const events = [];
    let size = 20;
    for (let i = 0; size < MAX_WEBHOOK_BODY_BYTES - 2048; i++) {
      const event = priceChange(`proxy-${i}`);
      events.push(event);
      size += JSON.stringify(event).length + 1;
    }
    const body = JSON.stringify({ events });
    expect(body.length).toBeGreaterThan(MAX_WEBHOOK_BODY_BYTES - 4096);
    expect(body.length).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
    const answer = await send(port, '127.0.0.4', 'POST', '/webhooks/events', { 'content-type': 'application/json', ...signatureHeaders(SECRET, body) }, body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ received: events.length });
  });

  it('passes a 1.5 MiB GraphQL body to the gateway, which answers it', async () => {
    const body = JSON.stringify({ query: '{ __typename }', extensions: { pad: 'x'.repeat(1.5 * 1024 * 1024) } });
    const answer = await send(port, '127.0.0.5', 'POST', '/graphql', { 'content-type': 'application/json' }, body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body.toString())).toEqual({ data: { __typename: 'Query' } });
  });

  it("passes the gateway's compression through once, and does not expose /metrics", async () => {
    const answer = await send(port, '127.0.0.6', 'POST', '/graphql', { 'content-type': 'application/json', 'accept-encoding': 'gzip' }, JSON.stringify({ query: '{ markets(first: 20) { edges { node { marketId productName } } } }' }));
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(answer.body).toString()).data.markets.edges).toHaveLength(20);
    expect((await send(port, '127.0.0.6', 'GET', '/metrics', {})).status).toBe(404);
    expect((await send(gatewayPort, '127.0.0.1', 'GET', '/metrics', {})).status).toBe(200);
  });
});

describe.runIf(haveHaproxy)('through HAProxy with option forwardfor', () => {
  let haproxy: StartedProcess;
  let port: number;
  let dir: string;
  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'gateway-haproxy-'));
    writeFileSync(
      join(dir, 'haproxy.cfg'),
      `global
  maxconn 256

defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  option forwardfor
  option http-server-close

frontend gateway
  bind 127.0.0.1:${port}
  default_backend replicas

backend replicas
  server r0 127.0.0.1:${gatewayPort}
`,
    );
    haproxy = await startProcess('haproxy', ['-f', join(dir, 'haproxy.cfg'), '-db'], null, { cwd: dir });
    await untilHealthy(port);
  });
  afterAll(async () => {
    await stopProcess(haproxy.child);
    rmSync(dir, { recursive: true, force: true });
  });

  countsRealClients(() => port, ['127.0.0.12', '127.0.0.13']);
});
