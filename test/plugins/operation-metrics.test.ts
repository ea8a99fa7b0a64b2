import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { deprecatedFieldCounter, operationDuration, useOperationMetrics } from '../../src/plugins/operation-metrics.js';

const schema = createSchema({
  typeDefs: 'type Query { ping: String, old: String @deprecated(reason: "use ping"), boom: String }',
  resolvers: {
    Query: {
      ping: () => 'pong',
      old: () => 'old',
      boom: () => {
        throw new Error('boom');
      },
    },
  },
});
const registered = new Set(['Ping']);

/** The plugin as app.ts configured it before: the series the gateway's own hooks must report alike. */
function prometheusPlugin(registry: Registry): Plugin {
  return usePrometheus({
    endpoint: '/metrics',
    registry,
    labels: { operationName: false, path: false, url: false },
    metrics: {
      graphql_yoga_http_duration: operationDuration(registry, registered),
      graphql_envelop_request_duration: false,
      graphql_envelop_phase_execute: true,
      graphql_envelop_error_result: true,
      graphql_envelop_deprecated_field: deprecatedFieldCounter(registry, schema),
      graphql_envelop_request: false,
      graphql_envelop_request_time_summary: false,
      graphql_envelop_phase_parse: false,
      graphql_envelop_phase_validate: false,
      graphql_envelop_phase_context: false,
      graphql_envelop_phase_subscribe: false,
      graphql_envelop_schema_change: false,
    },
  });
}

/** The counts and counters (durations left out) after the same requests. */
async function seriesAfterRequests(plugin: (registry: Registry) => Plugin): Promise<string[]> {
  const registry = new Registry();
  const yoga = createYoga({ schema, plugins: [plugin(registry)], maskedErrors: true, logging: false });
  const queries: [string, string?][] = [
    ['query Ping { ping }', 'Ping'],
    ['query Ping { ping }', 'Ping'],
    ['{ ping }'],
    ['query Other { ping }', 'Other'],
    ['{ old ping }'],
    ['{ nope }'],
    ['{ ping '],
    ['{ boom ping }'],
  ];
  for (const [query, operationName] of queries) {
    const response = await yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, operationName }),
    });
    await response.text();
  }
  const text = await (await yoga.fetch('http://gateway.test/metrics')).text();
  return text.split('\n').filter((line) => /^graphql_\w+(_count|_total|_result|_field)?\{/.test(line) && !/_(bucket|sum)\{/.test(line)).sort();
}

describe('the operation metrics (operation-metrics.ts)', () => {
  it('report the series, labels and counts usePrometheus reported with the same settings', async () => {
    const ours = await seriesAfterRequests((registry) => useOperationMetrics({ registry, schema, registered, endpoint: '/metrics' }));
    const theirs = await seriesAfterRequests(prometheusPlugin);
    expect(ours).toEqual(theirs);
    // The cases are all there: a registered name, other and anonymous; execute, validate and parse errors; a deprecated field.
    const all = ours.join('\n');
    for (const expected of ['operationName="Ping"', 'operationName="other"', 'operationName="anonymous"', 'phase="execute"', 'phase="validate"', 'phase="parse"', 'fieldName="old"']) {
      expect(all).toContain(expected);
    }
  });
});
