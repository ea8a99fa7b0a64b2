import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SimulatorControls, type Fault, type Latency, type Target } from './controls.js';
import { BadRequest, badRequest, Router, SERVICES, type ServiceName, type SimResponse } from './router.js';
import { generateWorld, type World } from './world/index.js';
import { registerMarketsRoutes } from './markets/routes.js';
import { registerAssetsRoutes } from './assets/routes.js';
import { createAlertsState, registerAlertsRoutes, type AlertsState } from './alerts/index.js';

export { SERVICES, type ServiceName } from './router.js';
export { SimulatorControls } from './controls.js';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Seed of the generated data; the same seed gives the same world. */
  seed?: number;
  /** When set, markets and assets calls must carry this `X-Service-Client-Key` (401 otherwise). */
  clientKey?: string;
  /** How many subscribers the alerts service has (default 60). */
  subscribers?: number;
}

export interface Simulator {
  /** Base of the simulator, e.g. `http://127.0.0.1:7001`. */
  url: string;
  /** The base URL of each service, to use as `ALERTS_URL`, `MARKETS_URL`, `ASSETS_URL`. */
  urls: Record<ServiceName, string>;
  controls: SimulatorControls;
  world: World;
  alerts: AlertsState;
  close(): Promise<void>;
}

const MAX_BODY = 8 * 1024 * 1024;

/** Starts the three upstream services on one port, each under its own prefix (`/alerts`, `/markets`, `/assets`). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const seed = options.seed ?? 42;
  const world = generateWorld(seed);
  const alerts = createAlertsState(seed, world.wallets.map((w) => w.address), { subscribers: options.subscribers });
  const controls = new SimulatorControls();

  const routers: Record<ServiceName, Router> = {
    alerts: new Router('alerts'),
    markets: new Router('markets'),
    assets: new Router('assets'),
  };
  registerAlertsRoutes(routers.alerts, alerts);
  registerMarketsRoutes(routers.markets, world, { clientKey: options.clientKey });
  registerAssetsRoutes(routers.assets, world, { clientKey: options.clientKey });

  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: String(err) } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const rawBody = await readBody(req);
    const [, prefix = '', ...rest] = url.pathname.split('/');

    if (prefix === '__sim') return send(res, control(req.method ?? 'GET', `/${rest.join('/')}`, rawBody));

    const service = SERVICES.find((s) => s === prefix);
    if (!service) return send(res, { status: 404, body: { error: 'not found' } });
    const path = `/${rest.join('/')}`;
    const method = req.method ?? 'GET';
    const matched = routers[service].match(method, path);
    const route = matched && 'route' in matched ? `${matched.route.method} ${matched.route.pattern}` : `${method} ${path}`;
    controls.record({ service, route, method, path, headers: { ...req.headers } });

    const delay = controls.delayFor(service, route);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    const fault = controls.faultFor(service, route);
    if (fault && !fault.transform) return applyFault(res, fault);

    if (!matched) return send(res, { status: 404, body: { error: 'not found' } });
    if (!('route' in matched)) {
      return send(res, { status: 405, body: { error: 'method not allowed' }, headers: { allow: matched.allowed.join(', ') } });
    }
    let body: unknown;
    if (rawBody.length > 0) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        return send(res, { status: 400, body: { error: 'body is not valid JSON' } });
      }
    }
    let answer: SimResponse;
    try {
      answer = await matched.route.handler({
        service,
        method,
        path,
        route: matched.route.pattern,
        params: matched.params,
        query: url.searchParams,
        headers: req.headers,
        body,
        rawBody,
      });
    } catch (err) {
      if (!(err instanceof BadRequest)) throw err;
      answer = badRequest(err.message);
    }
    if (fault?.transform) answer = { status: 200, body: fault.transform(answer.body, url.searchParams, answer.status) };
    send(res, answer);
  }

  function applyFault(res: ServerResponse, fault: Fault): void {
    if (fault.hang) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault.streamBytes !== undefined) return streamPadding(res, fault.streamBytes);
    const headers: Record<string, string> = {};
    if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
    send(res, { status: fault.status ?? 503, body: fault.body ?? { error: 'simulated fault' }, headers });
  }

  /** `/__sim/*`: the control path, served only by the simulator. */
  function control(method: string, path: string, rawBody: string): SimResponse {
    let input: { target?: Target; latency?: Latency | null; fault?: Fault | null; token?: unknown };
    try {
      input = (rawBody ? JSON.parse(rawBody) : {}) as typeof input;
    } catch {
      return { status: 400, body: { error: 'body is not valid JSON' } };
    }
    if (method === 'GET' && path === '/state') return { status: 200, body: controls.state() };
    if (method === 'GET' && path === '/requests') return { status: 200, body: controls.counts() };
    if (method === 'GET' && path === '/headers') return { status: 200, body: controls.headerLog() };
    // Fixtures for a load generator in another process: every subscriber's credentials, and the wallets by size.
    if (method === 'GET' && path === '/subscribers') {
      const subscribers = [...alerts.subscribers.values()].map((s) => ({
        walletAddress: s.walletAddress,
        token: s.token,
        positions: world.positionsByOwner.get(s.walletAddress)?.length ?? 0,
      }));
      return { status: 200, body: { clientKey: alerts.demo.clientKey, subscribers } };
    }
    if (method === 'GET' && path === '/wallets') {
      const wallets = world.wallets.map((w) => ({ address: w.address, positions: world.positionsByOwner.get(w.address)?.length ?? 0 }));
      return { status: 200, body: { wallets: wallets.sort((a, b) => b.positions - a.positions) } };
    }
    // A subscriber's token revoked: the alerts service refuses it (401) until the alerts state is reset.
    if (method === 'POST' && path === '/revoke') {
      if (typeof input.token !== 'string') return { status: 400, body: { error: 'token must be a string' } };
      alerts.revokeToken(input.token);
      return { status: 200, body: {} };
    }
    if (method === 'POST' && path === '/reset') {
      controls.reset();
      return { status: 200, body: {} };
    }
    if (method === 'POST' && (path === '/latency' || path === '/fault')) {
      const target = input.target;
      if (!target || !SERVICES.includes(target.service)) {
        return { status: 400, body: { error: 'target.service must be one of alerts, markets, assets' } };
      }
      if (path === '/latency') controls.setLatency(target, input.latency ?? null);
      else controls.setFault(target, input.fault ?? null);
      return { status: 200, body: controls.state() };
    }
    return { status: 404, body: { error: 'not found' } };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${address.address}:${address.port}`;

  return {
    url,
    urls: { alerts: `${url}/alerts`, markets: `${url}/markets`, assets: `${url}/assets` },
    controls,
    world,
    alerts,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `{"pad":"xxxx…"}` of about `bytes` bytes, chunked, written only as fast as the client reads (the fault `streamBytes`). */
function streamPadding(res: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = Math.max(0, bytes - 10);
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  res.write('{"pad":"');
  const pump = (): void => {
    while (left > 0 && !res.destroyed) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end('"}');
  };
  res.on('error', () => undefined);
  pump();
}

function send(res: ServerResponse, answer: SimResponse): void {
  const headers: Record<string, string> = { ...answer.headers };
  let payload = '';
  if (typeof answer.body === 'string') payload = answer.body;
  else if (answer.body !== undefined) {
    payload = JSON.stringify(answer.body);
    headers['content-type'] ??= 'application/json; charset=utf-8';
  }
  headers['content-length'] = String(Buffer.byteLength(payload));
  res.writeHead(answer.status, headers);
  res.end(payload);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
