import { createCounter, createHistogram, type FillLabelsFnParams } from '@graphql-yoga/plugin-prometheus';
import { isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';
import { tallyHistogram } from '../metrics.js';

// The series of `usePrometheus` (@graphql-yoga/plugin-prometheus) the gateway reports, as operation-metrics.ts observes them.

/** `operationName` of an operation whose name no registered document defines. */
export const OTHER_OPERATION = 'other';

/**
 * `graphql_yoga_http_duration` (the plugin's name, help and buckets) by operation: `operationName` is
 * the name of an operation of the trusted documents manifest (`PERSISTED_DOCUMENTS`), `other` for any
 * other name and `anonymous` for none, so a caller's choice of names never grows the series; then the
 * operation type, method and status. Without a manifest every named operation is `other`.
 */
export function operationDuration(registry: Registry, registered: ReadonlySet<string>) {
  type Params = FillLabelsFnParams & { request: Request; response: Response };
  return createHistogram<'request', 'operationName' | 'operationType' | 'method' | 'statusCode', Params>({
    registry,
    phases: ['request'],
    histogram: {
      name: 'graphql_yoga_http_duration',
      help: 'Time spent on HTTP connection',
      labelNames: ['operationName', 'operationType', 'method', 'statusCode'],
    },
    fillLabelsFn: ({ operationName, operationType, request, response }) => ({
      operationName: operationLabel(registered, operationName),
      operationType: operationType ?? 'unknown',
      method: request.method,
      statusCode: response.status,
    }),
  });
}

/** The `operationName` label of an operation name: registered names only. */
export function operationLabel(registered: ReadonlySet<string>, name: string | undefined): string {
  return !name ? 'anonymous' : registered.has(name) ? name : OTHER_OPERATION;
}

/** prom-client's default buckets, which the plugin's histograms have. */
const PLUGIN_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
type Tallied = ReturnType<typeof tallyHistogram>;
/** Each registry's two duration histograms, made once however many apps observe into it (as the plugin's own are). */
const durationsOf = new WeakMap<Registry, { http: Tallied; execute: Tallied }>();

/**
 * The HTTP duration (labelled as `operationDuration` labels it) and the execute phase's duration, as
 * tallied histograms: prom-client's `observe` validated and hashed a label object twice per request,
 * a share of the direct path's HTTP phase in its profile (bench/PHASES.md). The scrape is prom-client's.
 */
export function operationDurations(registry: Registry) {
  let known = durationsOf.get(registry);
  if (!known) {
    const registers = [registry];
    known = {
      http: tallyHistogram({ name: 'graphql_yoga_http_duration', help: 'Time spent on HTTP connection', labelNames: ['operationName', 'operationType', 'method', 'statusCode'], buckets: PLUGIN_BUCKETS, registers }),
      execute: tallyHistogram({ name: 'graphql_envelop_phase_execute', help: 'Time spent on running the GraphQL "execute" function', labelNames: ['operationType'], buckets: PLUGIN_BUCKETS, registers }),
    };
    durationsOf.set(registry, known);
  }
  return known;
}

/**
 * The plugin's own deprecated-field counter (same name, help and labels), observed only when the
 * schema deprecates a field or argument: otherwise it has nothing to count.
 */
export function deprecatedFieldCounter(registry: Registry, schema: GraphQLSchema) {
  const deprecates = Object.values(schema.getTypeMap()).some(
    (type) =>
      (isObjectType(type) || isInterfaceType(type)) &&
      Object.values(type.getFields()).some((field) => field.deprecationReason != null || field.args.some((arg) => arg.deprecationReason != null)),
  );
  return createCounter<'parse', 'operationType' | 'fieldName' | 'typeName', FillLabelsFnParams & { deprecationInfo: { fieldName: string; typeName: string } }>({
    registry,
    phases: ['parse'],
    counter: {
      name: 'graphql_envelop_deprecated_field',
      help: 'Counts the amount of deprecated fields used in selection sets',
      labelNames: ['operationType', 'fieldName', 'typeName'],
    },
    fillLabelsFn: (params) => ({
      operationType: params.operationType!,
      fieldName: params.deprecationInfo.fieldName,
      typeName: params.deprecationInfo.typeName,
    }),
    shouldObserve: () => deprecates,
  });
}
