import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createServices, type Services } from '../../src/services.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

/** Not on Solana: no market listing carries a token record of it, so its failure reaches the field. */
const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const ASSET = `query($id: String!) { asset(id: $id) { name } }`;

describe('log lines of a request carry its id', () => {
  let sim: Simulator;
  let services: Services;
  let app: App;
  const lines: Record<string, any>[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    const config = Object.freeze({ ...loadConfig({ RESPONSE_CACHE: 'off', WEBHOOK_SECRET: 'test-secret' }) });
    const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    services = createServices({ config, urls: sim.urls, logger, upstream: { breaker: false } });
    app = createApp({ config, services });
    await services.start();
  });
  afterAll(async () => {
    await services.close();
    await sim.close();
  });
  afterEach(() => {
    sim.controls.reset();
    vi.restoreAllMocks();
    lines.length = 0;
  });

  const ask = (variables: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.yoga.fetch(
      'http://gateway.test/graphql',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ query: ASSET, variables }),
      },
      // What a node server hands Yoga: the socket's peer (the log names it as the client).
      { req: { socket: { remoteAddress: '203.0.113.9' }, headers: {} } },
    );

  it("writes an upstream failure once, with the caller's X-Request-Id and the field", async () => {
    sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const response = await ask({ id: ETH }, { 'x-request-id': 'screen-42.a' });
    const body = (await response.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]!.extensions.code).toBe('UPSTREAM_UNAVAILABLE');

    const about = lines.filter((l) => JSON.stringify(l).includes('assets upstream answered 503'));
    expect(about).toEqual([expect.objectContaining({ level: 40, requestId: 'screen-42.a', client: '203.0.113.9', path: 'asset', msg: 'upstream failure in a field' })]);
  });

  it('writes an unexpected error at error level with the generated id echoed to the caller, and masks it', async () => {
    vi.spyOn(services.assetCache, 'get').mockRejectedValue(new TypeError('a bug with internals'));
    const response = await ask({ id: ETH });
    const body = (await response.json()) as { errors: { message: string }[] };
    expect(body.errors[0]!.message).toBe('Unexpected error.');

    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const about = lines.filter((l) => JSON.stringify(l).includes('a bug with internals'));
    expect(about).toEqual([expect.objectContaining({ level: 50, requestId, path: 'asset', msg: 'unexpected error in a field' })]);
  });

  it('writes a refused webhook with its request id', async () => {
    const response = await app.yoga.fetch('http://gateway.test/webhooks/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'hook-9' },
      body: JSON.stringify({ events: [] }),
    });
    expect(response.status).toBe(401);
    expect(lines).toEqual([expect.objectContaining({ level: 40, requestId: 'hook-9', msg: 'webhook: rejected' })]);
  });

  it('writes nothing for an answer without errors', async () => {
    await ask({ id: ETH }, { 'x-request-id': 'quiet-1' });
    expect(lines.filter((l) => l['requestId'] === 'quiet-1' || l['level'] >= 40)).toEqual([]);
  });
});
