/**
 * The hand-written baseline of the throughput benchmark: what a team would write instead of the gateway.
 * One route per screen (undici `request`, independent calls side by side with `Promise.all`), mapping
 * the records to the gateway's response shape (`{"data": ...}`). Public reads (assets 10 s, market
 * listings 30 s) are shared process-wide with one call in flight per key, as the gateway shares them;
 * every per-user read is made on every request. No GraphQL, breaker or retry.
 *
 *   POST /mobile-home   Authorization + X-Service-Client-Key of a subscriber
 *   POST /wallet        body {"address": string, "first"?: number}
 *   POST /markets       body {"first"?: number}
 *
 * Started by bench/throughput/servers.ts as its own process: `PORT`, `ALERTS_URL`, `MARKETS_URL`, `ASSETS_URL`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mobileHome } from './mobile.js';
import { marketsScreen, walletScreen } from './pages.js';
import { UpstreamError } from './upstream.js';

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

/** Its own function so that the phase profile (bench/phases/aggregate.ts) tells serialization from the socket write. */
function serialize(body: unknown): string {
  return JSON.stringify(body);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = serialize(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const input = await readJson(req);
  const number = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 200 ? v : fallback);
  switch (req.url) {
    case '/health':
      return send(res, 200, { status: 'ok' });
    case '/mobile-home': {
      const authorization = req.headers.authorization;
      const clientKey = req.headers['x-service-client-key'];
      if (typeof authorization !== 'string' || typeof clientKey !== 'string') return send(res, 401, { errors: [{ message: 'unauthenticated' }] });
      return send(res, 200, { data: await mobileHome({ authorization, 'x-service-client-key': clientKey }) });
    }
    case '/wallet': {
      if (typeof input['address'] !== 'string') return send(res, 400, { errors: [{ message: 'address is required' }] });
      return send(res, 200, { data: await walletScreen(input['address'], number(input['first'], 50)) });
    }
    case '/markets':
      return send(res, 200, { data: await marketsScreen(number(input['first'], 100)) });
    default:
      return send(res, 404, { errors: [{ message: 'not found' }] });
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    const status = error instanceof UpstreamError ? 502 : 500;
    if (!res.headersSent) send(res, status, { errors: [{ message: String(error instanceof Error ? error.message : error) }] });
    else res.destroy();
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`baseline listening on ${typeof address === 'object' && address ? address.port : '?'}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
