import { createCounter, createHistogram, type FillLabelsFnParams } from '@graphql-yoga/plugin-prometheus';
import { isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import type { Registry } from 'prom-client';

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
      operationName: !operationName ? 'anonymous' : registered.has(operationName) ? operationName : OTHER_OPERATION,
      operationType: operationType ?? 'unknown',
      method: request.method,
      statusCode: response.status,
    }),
  });
}

/**
 * The plugin's own deprecated-field counter (same name, help and labels), observed only when the
 * schema deprecates a field or argument: otherwise it has nothing to count, and the plugin would walk
 * every request's document with a TypeInfo to find so.
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
