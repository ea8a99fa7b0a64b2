import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTracing, type Tracing } from '../../src/tracing.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

describe('OpenTelemetry tracing', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing;
  let gw: TestGateway;

  beforeAll(async () => {
    tracing = startTracing({ exporter });
    gw = await startTestGateway({ config: { tracing: true } });
  });
  afterAll(async () => {
    await gw.close();
    await tracing.shutdown();
  });

  it("continues the client's trace: request, operation and its phases, and one client span per upstream call carrying traceparent", async () => {
    exporter.reset();
    gw.sim.controls.resetCounts();
    const address = gw.sim.world.demoWallets[0]!;
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` },
      body: JSON.stringify({ query: `query Positions($a: String!) { wallet(address: $a) { totalValueUsd } }`, variables: { a: address }, operationName: 'Positions' }),
    });
    expect(response.status).toBe(200);

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
    expect(spans.every((s) => s.spanContext().traceId === TRACE_ID)).toBe(true);

    const [request] = byName('POST /graphql');
    expect(parentOf(request!)).toBe(CLIENT_SPAN);
    const [operation] = byName('graphql.operation');
    expect(parentOf(operation!)).toBe(request!.spanContext().spanId);
    for (const phase of ['graphql.parse', 'graphql.validate', 'graphql.context', 'graphql.execute']) {
      expect(byName(phase).map(parentOf)).toEqual([operation!.spanContext().spanId]);
    }
    const [execute] = byName('graphql.execute');
    expect(execute!.attributes['graphql.operation.name']).toBe('Positions');

    // One client span per upstream call, each a child of the execute span...
    const upstream = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(upstream).toHaveLength(1);
    expect(parentOf(upstream[0]!)).toBe(execute!.spanContext().spanId);
    // ...whose id is the parent the upstream received.
    const received = gw.sim.controls.headerLog().filter((e) => e.route === 'GET /v0/positions/owners');
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['traceparent']).toBe(`00-${TRACE_ID}-${upstream[0]!.spanContext().spanId}-01`);
  });

  it('starts a new trace when the client sends none', async () => {
    exporter.reset();
    await gw.execute('{ __typename }');
    const [request] = exporter.getFinishedSpans().filter((s) => s.name === 'POST /graphql');
    expect(request!.parentSpanContext).toBeUndefined();
    expect(request!.spanContext().traceId).not.toBe(TRACE_ID);
  });
});

describe('tracing configuration', () => {
  it('is off while the OTEL_* variables are unset, on with an OTLP endpoint', () => {
    expect(loadConfig({}).tracing).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }).tracing).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBe(false);
  });
});
