import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createHttpServer, SERVER_TIMEOUTS, withFastPath } from '../../src/node-http.js';
import { startTracing, type Tracing } from '../../src/tracing.js';
import { startTestGateway, useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { send, useTwinServers } from '../helpers/twin-servers.js';

const QUERY = '{ markets(first: 2) { edges { node { marketId } } } }';
const VIEWER = '{ viewer { id channels { key } } }';

describe('the direct path with tracing on', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let gw: TestGateway;
  let server: Server;

  beforeAll(async () => {
    tracing = startTracing({ exporter });
    gw = await startTestGateway({ config: { tracing: true } });
    // The listener as lifecycle.ts builds it: the direct path in front of Yoga when the app has one.
    const { app } = gw;
    server = createHttpServer(app.direct ? withFastPath(app.yoga, app.direct) : app.yoga, SERVER_TIMEOUTS, app.hits);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gw.close();
    await tracing.shutdown();
  });

  it('sends every request through the pipeline, which traces each one', async () => {
    expect(gw.app.direct).toBeUndefined();
    const port = (server.address() as AddressInfo).port;
    exporter.reset();
    // Past the two runs after which the direct path would take the document.
    for (let i = 0; i < 4; i++) expect((await send(port, { query: QUERY })).status).toBe(200);
    const spans = exporter.getFinishedSpans();
    expect(spans.filter((span) => span.name === 'POST /graphql')).toHaveLength(4);
    expect(spans.filter((span) => span.name === 'graphql.execute')).toHaveLength(4);
  });
});

describe('the direct path, a failure once the request is counted', () => {
  const logger = createLogger({ logLevel: 'silent' });
  const gw = useTestGateway({ logger, resetControls: true });
  const twins = useTwinServers(gw);

  it('answers it once, with a 500 that leaks nothing, logged, and never runs it again in Yoga', async () => {
    const sent = { query: VIEWER, headers: gw.viewerHeaders };
    for (let i = 0; i < 2; i++) await twins.pipeline(sent);
    gw.sim.controls.setFault({ service: 'alerts' }, { status: 503 });
    gw.sim.controls.resetCounts();
    await twins.pipeline(sent);
    const oneRun = gw.sim.controls.counts();
    gw.sim.controls.resetCounts();
    // The error log's warning about the upstream failure throws: a step after the execution fails.
    const warn = vi.spyOn(logger, 'warn').mockImplementationOnce(() => {
      throw new Error('log sink at /srv/gateway broke');
    });
    const error = vi.spyOn(logger, 'error');
    const before = { ...twins.counts };
    try {
      const answer = await twins.direct(sent);
      expect(answer.status).toBe(500);
      const body = answer.body.toString();
      expect(JSON.parse(body).errors.map((e: { message: string }) => e.message)).toEqual(['Unexpected error.']);
      expect(body).not.toContain('/srv/gateway');
      expect(twins.counts.direct - before.direct).toBe(1);
      expect(twins.counts.yogaBehindDirect).toBe(before.yogaBehindDirect);
      expect(gw.sim.controls.counts()).toEqual(oneRun);
      expect(error.mock.calls.filter(([, message]) => message === 'direct path: unexpected failure')).toHaveLength(1);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
