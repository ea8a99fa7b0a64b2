import {
  getOperationAST,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { createCounter } from '@graphql-yoga/plugin-prometheus';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { Registry } from 'prom-client';
import { deprecatedFieldCounter, operationDurations, operationLabel } from './operation-series.js';

export { deprecatedFieldCounter, operationDuration, OTHER_OPERATION } from './operation-series.js';

export interface OperationMetricsOptions {
  registry: Registry;
  schema: GraphQLSchema;
  /** The operation names the HTTP duration carries (the manifest's); any other is `other`. */
  registered: ReadonlySet<string>;
  /** Where Prometheus reads them on the public port; `false` when the metrics server serves them (METRICS_PORT). */
  endpoint: string | false;
}

const OBSERVED = Symbol('operation metrics');

/** One operation answered by the direct path: its document, operation, result and status; `arrivedAt` from `Date.now()`. */
export type DirectObservation = (answered: { document: DocumentNode; operation: OperationDefinitionNode; arrivedAt: number; executeMs: number; result: ExecutionResult; status: number; method: string }) => void;

/** What the metrics note on an operation's context. */
interface Observed {
  [OBSERVED]?: { arrivedAt?: number; document?: DocumentFacts; named?: { operationName: string | undefined; operationType: string | undefined } };
}

/** An operation's execute duration, and its HTTP duration by method and status. */
interface HeldSeries {
  executed: (seconds: number) => void;
  byMethod: Record<string, Map<number, (seconds: number) => void>>;
}

/** What a document's first definition says, as the Prometheus plugin labels by it, and its deprecated fields: found once per document. */
interface DocumentFacts {
  operationType: string | undefined;
  deprecated: { fieldName: string; typeName: string }[];
}

/**
 * The series `usePrometheus` (@graphql-yoga/plugin-prometheus) reports with the gateway's settings,
 * with the same names, help, labels and buckets, observed by hooks of its own: the HTTP duration by
 * operation, the execute phase's duration by operation type, errors by operation type and phase
 * (`parse`, `validate`, `context`, `execute`), and deprecated fields used. The profile of a cold
 * request showed the plugin's generic machinery (label filtering, per-phase handler lists, a copy of
 * the server context per answer) as a share of the plugin chain; what a document tells (its type, its
 * deprecated fields) is found once per document here. Not reported: the operation duration
 * (the HTTP duration less the socket), the request-time Summary and the request counter (the same
 * figures again), and the parse, validate and context phases (cached or trivial here). Operation
 * names are the caller's choice: only the HTTP duration carries them, registered ones only.
 */
export function useOperationMetrics(options: OperationMetricsOptions): Plugin & { observeDirect: DirectObservation } {
  const { registry, endpoint, registered } = options;
  const durations = operationDurations(registry);
  // Label values in `labelNames` order; an operation type the document does not tell is labelled "undefined", as prom-client prints it.
  const executed = (operationType: string | undefined, ms: number) => durations.execute.observe(ms / 1000, operationType as string);
  const answered = (name: string | undefined, type: string | undefined, method: string, status: number, arrivedAt: number) =>
    durations.http.observe((Date.now() - arrivedAt) / 1000, operationLabel(registered, name), type ?? 'unknown', method, String(status));
  const errors = createCounter<'execute', 'operationType' | 'phase'>({
    registry,
    phases: ['execute'],
    counter: { name: 'graphql_envelop_error_result', help: 'Counts the amount of errors reported from all phases', labelNames: ['operationType', 'phase'] },
    fillLabelsFn: () => ({}) as never,
  }).counter;
  const deprecation = deprecatedFieldCounter(registry, options.schema);
  const countsDeprecated = deprecation.shouldObserve!({} as never, {});
  const typeInfo = new TypeInfo(options.schema);
  const facts = new WeakMap<DocumentNode, DocumentFacts>();
  const factsOf = (document: DocumentNode): DocumentFacts => {
    let known = facts.get(document);
    if (!known) {
      const first = document.definitions[0] as Partial<OperationDefinitionNode> | undefined;
      known = { operationType: first?.operation, deprecated: countsDeprecated ? deprecatedFields(document, typeInfo) : [] };
      facts.set(document, known);
    }
    return known;
  };
  // What an operation's parse found, and when its HTTP request arrived, on its context (the server
  // context over HTTP): a property of an object that lives as long, where a WeakMap entry per request
  // would cost the garbage collector more.
  const parsed = (context: object) => (context as Observed)[OBSERVED]?.document;
  const fail = (operationType: string | undefined, phase: string | undefined) => errors.labels({ operationType, phase } as never).inc();
  const failed = (operationType: string | undefined, result: ExecutionResult) => {
    for (let i = result.errors?.length ?? 0; i > 0; i--) fail(operationType, 'execute');
  };

  // The direct path's operations' series, held per operation (its labels joined once, not per answer).
  const held = new WeakMap<OperationDefinitionNode, HeldSeries>();
  const heldOf = (operation: OperationDefinitionNode, operationType: string | undefined): HeldSeries => {
    let known = held.get(operation);
    if (!known) held.set(operation, (known = { executed: durations.execute.series(operationType as string), byMethod: Object.create(null) as HeldSeries['byMethod'] }));
    return known;
  };

  // The same series for an operation the direct path (src/direct/) answered, observed when it is written.
  const observeDirect: DirectObservation = ({ document, operation, arrivedAt, executeMs, result, status, method }) => {
    const { operationType, deprecated } = factsOf(document);
    for (const deprecationInfo of deprecated) deprecation.counter.labels(deprecation.fillLabelsFn({ operationType, deprecationInfo } as never, {})).inc();
    failed(operationType, result);
    const series = heldOf(operation, operationType);
    series.executed(executeMs / 1000);
    const byStatus = (series.byMethod[method] ??= new Map());
    let http = byStatus.get(status);
    if (!http) {
      http = durations.http.series(operationLabel(registered, operation.name?.value), operation.operation, method, String(status));
      byStatus.set(status, http);
    }
    http((Date.now() - arrivedAt) / 1000);
  };
  return {
    observeDirect,
    onRequest(payload) {
      if (endpoint && payload.url.pathname === endpoint) {
        const { fetchAPI } = payload;
        return registry.metrics().then((metrics) => payload.endResponse(new fetchAPI.Response(metrics, { headers: { 'Content-Type': registry.contentType } })));
      }
      (payload.serverContext as Observed)[OBSERVED] = { arrivedAt: Date.now() };
      return undefined;
    },
    onPluginInit({ registerContextErrorHandler }) {
      registerContextErrorHandler(({ context }) => fail(parsed(context)?.operationType, 'context'));
    },
    onParse({ context }) {
      return ({ result }) => {
        if (result === null) return;
        if (result instanceof Error) return fail(undefined, 'parse');
        const parsedDocument = result as DocumentNode;
        const document = factsOf(parsedDocument);
        const observed = ((context as Observed)[OBSERVED] ??= {});
        observed.document = document;
        const { request, params } = context as { request?: Request; params?: { operationName?: string } };
        if (request) {
          const operation = getOperationAST(parsedDocument, params?.operationName);
          observed.named = { operationName: operation?.name?.value, operationType: operation?.operation };
        }
        for (const deprecationInfo of document.deprecated) {
          deprecation.counter.labels(deprecation.fillLabelsFn({ operationType: document.operationType, deprecationInfo } as never, {})).inc();
        }
      };
    },
    onValidate({ context }) {
      const document = parsed(context);
      if (!document) return undefined;
      return ({ valid }) => void (valid || fail(document.operationType, 'validate'));
    },
    onExecute({ args }) {
      const document = parsed(args.contextValue);
      if (!document) return undefined;
      const { operationType } = document;
      const startedAt = Date.now();
      const done = () => executed(operationType, Date.now() - startedAt);
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return { onNext: ({ result: part }) => failed(operationType, part), onEnd: done };
          failed(operationType, result);
          done();
          return undefined;
        },
      };
    },
    onSubscribe({ args }) {
      const document = parsed(args.contextValue);
      if (!document) return undefined;
      const { operationType } = document;
      return {
        onSubscribeResult({ result }) {
          if (isAsyncIterable(result)) return { onNext: ({ result: part }) => failed(operationType, part) };
          failed(operationType, result);
          return undefined;
        },
        // The plugin labels a failed subscribe by its operation type alone.
        onSubscribeError: () => fail(operationType, undefined),
      };
    },
    onResponse({ request, response, serverContext }) {
      const { arrivedAt, named } = (serverContext as Observed)[OBSERVED] ?? {};
      if (arrivedAt === undefined || !named) return;
      answered(named.operationName, named.operationType, request.method, response.status, arrivedAt);
    },
  };
}

/** The deprecated fields a document selects (what the plugin's own walk finds). */
function deprecatedFields(document: DocumentNode, typeInfo: TypeInfo): { fieldName: string; typeName: string }[] {
  const found: { fieldName: string; typeName: string }[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // A deprecated argument is named with its field as the type, as the plugin counts it.
      Argument: () => {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        if (field && argument && argument.deprecationReason != null) found.push({ fieldName: argument.name, typeName: field.name });
      },
      Field: () => {
        const field = typeInfo.getFieldDef();
        if (field && field.deprecationReason != null) found.push({ fieldName: field.name, typeName: typeInfo.getParentType()?.name ?? '' });
      },
    }),
  );
  return found;
}
