import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTracing } from '../../src/tracing.js';
import { startTestGateway } from '../helpers/gateway.js';

/** A stand-in OTLP/HTTP collector on loopback: what the gateway exports, as received. */
describe('OTLP export configured by the standard OTEL_* variables', () => {
  let collector: Server;
  const received: { path: string; body: string }[] = [];

  beforeAll(async () => {
    collector = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

  it('sends the spans of an operation to OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env['OTEL_EXPORTER_OTLP_ENDPOINT'] = endpoint;
    process.env['OTEL_EXPORTER_OTLP_PROTOCOL'] = 'http/json';
    try {
      expect(loadConfig(process.env).tracing).toBe(true);
      const tracing = startTracing();
      const gw = await startTestGateway({ config: { tracing: true } });
      await gw.execute('query Ping { __typename }', undefined, undefined, 'Ping');
      await gw.close();
      await tracing.shutdown();
    } finally {
      delete process.env['OTEL_EXPORTER_OTLP_ENDPOINT'];
      delete process.env['OTEL_EXPORTER_OTLP_PROTOCOL'];
    }
    const traces = received.filter((r) => r.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const names = traces.flatMap((r) => [...r.body.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]));
    expect(names).toEqual(expect.arrayContaining(['POST /graphql', 'graphql.operation', 'graphql.execute']));
  });
});
