import { Writable } from 'node:stream';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTracing, type Tracing } from '../../src/tracing.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Tracing as operators configure it: the standard OTEL_* variables, read by the SDK at start, decide
 * what is sampled and how the resource is named; spans carry the semantic-convention attributes; each
 * upstream call continues the request's trace and carries its X-Request-Id; log lines carry trace ids.
 */

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const POSITIONS = 'query Positions($a: String!) { wallet(address: $a) { totalValueUsd } }';
const OTEL_VARIABLES = ['OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_RESOURCE_ATTRIBUTES', 'OTEL_SERVICE_NAME'];

let sim: Simulator;
let tracing: Tracing | undefined;
let gw: TestGateway | undefined;
/** A fresh one per start: the SDK's shutdown stops its exporter for good. */
let exporter = new InMemorySpanExporter();
const lines: Record<string, unknown>[] = [];

/** Tracing started with these variables set (as the process would see them), then a gateway over the shared simulator. */
async function start(env: Record<string, string>): Promise<TestGateway> {
  Object.assign(process.env, env);
  exporter = new InMemorySpanExporter();
  tracing = startTracing({ exporter });
  const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>), done()) });
  gw = await startTestGateway({ sim, config: { tracing: true }, logger: createLogger({ logLevel: 'info' }, destination) });
  exporter.reset();
  lines.length = 0;
  sim.controls.reset();
  return gw;
}

async function post(gateway: TestGateway, headers: Record<string, string> = {}, query = POSITIONS) {
  return gateway.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query, variables: { a: sim.world.demoWallets[0] }, operationName: 'Positions' }),
  });
}

const named = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);
const only = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterEach(async () => {
  await gw?.close();
  await tracing?.shutdown();
  gw = tracing = undefined;
  for (const name of OTEL_VARIABLES) delete process.env[name];
});
afterAll(() => sim.close());

describe('spans', () => {
  it('carry the HTTP and GraphQL semantic-convention attributes, and the resource the OTEL_* variables name', async () => {
    const gateway = await start({ OTEL_SERVICE_NAME: 'gateway-eu', OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.version=1.2.3' });
    expect((await post(gateway)).status).toBe(200);

    const request = only('POST /graphql');
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(request.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/graphql',
      'url.path': '/graphql',
      'http.response.status_code': 200,
    });
    expect(only('graphql.operation').attributes).toMatchObject({ 'graphql.operation.name': 'Positions', 'graphql.operation.type': 'query' });
    expect(only('graphql.operation').status.code).not.toBe(SpanStatusCode.ERROR);
    expect(request.resource.attributes).toMatchObject({ 'service.name': 'gateway-eu', 'deployment.environment.name': 'staging', 'service.version': '1.2.3' });
  });

  it('name an unknown path by its method only (callers choose paths), its path in url.path', async () => {
    const gateway = await start({});
    expect((await gateway.app.yoga.fetch('http://gateway.test/wp-admin/123')).status).toBe(404);
    const [span] = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
    expect(span!.name).toBe('GET');
    expect(span!.attributes['url.path']).toBe('/wp-admin/123');
    expect(span!.attributes['http.route']).toBeUndefined();
    expect(span!.attributes['http.response.status_code']).toBe(404);
  });

  it('mark the operation failed when its answer carries an error: an upstream failure in a field, or a document that does not validate', async () => {
    const gateway = await start({});
    sim.controls.setFault({ service: 'markets' }, { status: 503 });
    const body = (await (await post(gateway)).json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(only('graphql.operation').status).toEqual({ code: SpanStatusCode.ERROR, message: 'UPSTREAM_UNAVAILABLE' });

    exporter.reset();
    await post(gateway, {}, 'query Positions { nope }');
    expect(only('graphql.operation').status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('tracing turned on by the OTEL_* variables', () => {
  it('is on with an endpoint or a named exporter, off when disabled or the exporter is none', () => {
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing).toBe(false);
  });
});

describe('the sampler the environment names', () => {
  it('exports no span with OTEL_TRACES_SAMPLER=traceidratio and OTEL_TRACES_SAMPLER_ARG=0, and still answers', async () => {
    const gateway = await start({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    expect((await post(gateway)).status).toBe(200);
    expect(sim.controls.headerLog({ route: 'GET /v0/positions/owners' })).toHaveLength(1);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('with parentbased_traceidratio at 0, follows a sampled parent: every span and every upstream call continues its trace', async () => {
    const gateway = await start({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    const response = await post(gateway, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`, 'x-request-id': 'checkout-7f3a.2' });
    expect(response.status).toBe(200);

    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.every((s) => s.spanContext().traceId === TRACE_ID)).toBe(true);
    expect(only('POST /graphql').parentSpanContext?.spanId).toBe(PARENT_SPAN);

    const calls = sim.controls.headerLog();
    expect(calls.map((c) => c.route)).toEqual(['GET /v0/positions/owners']);
    const clientSpans = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(calls.map((c) => c.headers['traceparent'])).toEqual(clientSpans.map((s) => `00-${TRACE_ID}-${s.spanContext().spanId}-01`));
    expect(calls.map((c) => c.headers['x-request-id'])).toEqual(['checkout-7f3a.2']);
    expect(only('POST /graphql').attributes['http.request.header.x-request-id']).toEqual(['checkout-7f3a.2']);
  });

  it('with parentbased_traceidratio at 0, samples no request that comes without a sampled parent', async () => {
    const gateway = await start({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    await post(gateway);
    await post(gateway, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-00` });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});

describe('log lines written for a request', () => {
  it("carry its trace id, the id of the span they were written in, and its request id", async () => {
    const gateway = await start({});
    sim.controls.setFault({ service: 'markets' }, { status: 503 });
    await post(gateway, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`, 'x-request-id': 'checkout-7f3a.2' });

    const line = lines.find((l) => l['msg'] === 'upstream failure in a field');
    expect(line).toBeDefined();
    expect(line).toMatchObject({ trace_id: TRACE_ID, trace_flags: '01', requestId: 'checkout-7f3a.2' });
    const spanIds = exporter.getFinishedSpans().map((s) => s.spanContext().spanId);
    expect(spanIds).toContain(line!['span_id']);
  });

  it('carry no trace fields while tracing is off', async () => {
    const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>), done()) });
    lines.length = 0;
    gw = await startTestGateway({ sim, logger: createLogger({ logLevel: 'info' }, destination) });
    sim.controls.setFault({ service: 'markets' }, { status: 503 });
    await post(gw, { traceparent: `00-${TRACE_ID}-${PARENT_SPAN}-01`, 'x-request-id': 'checkout-7f3a.2' });
    const line = lines.find((l) => l['msg'] === 'upstream failure in a field');
    expect(line).toMatchObject({ requestId: 'checkout-7f3a.2' });
    expect(line).not.toHaveProperty('trace_id');
    // The request id still reaches the upstream without tracing.
    expect(sim.controls.headerLog().map((c) => c.headers['x-request-id'])).toEqual(['checkout-7f3a.2']);
  });
});
