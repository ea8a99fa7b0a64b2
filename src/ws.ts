import type { Server } from 'node:http';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Context as GraphQLWsContext, SubscribePayload } from 'graphql-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { RequestContext, ServerContext } from './context.js';
import { readCredentials } from './credentials.js';
import { badUserInput, gatewayError } from './errors.js';
import { requestShapeRefusal } from './plugins/request-shape.js';

/** What graphql-ws's `execute`/`subscribe` answer: a result, or a stream of them. */
type OperationResult = ExecutionResult | AsyncIterable<ExecutionResult> | Promise<ExecutionResult | AsyncIterable<ExecutionResult>>;

/** `connectionParams` keys read as the headers of the same name over HTTP (any case). */
const CREDENTIAL_PARAMS = ['authorization', 'x-service-client-key', 'x-service-api-key'];
/** A message is one operation: far below ws's default of 100 MiB. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** On shutdown, how long a client gets to answer the close frame before its socket is cut. */
const CLOSE_GRACE_MS = 2000;
/**
 * Operations one socket may run at once (subscriptions mostly: queries end by themselves). Each live
 * subscription holds a listener and its own data sources, so one client must not open them without bound.
 */
export const MAX_OPERATIONS_PER_SOCKET = 100;
/** Larger than any `complete` message with a sensible id. */
const COMPLETE_MESSAGE_MAX_BYTES = 512;

export interface GraphQLWsOptions {
  /** Production refuses introspection, as the HTTP endpoint does. */
  production: boolean;
  /** WebSocket connections open at once; one more is closed at once with code 4429. Default: no limit. */
  maxSockets?: number;
}

/** The close code of a connection refused because the process holds the most it allows. */
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;

type WsContext = GraphQLWsContext<Record<string, unknown> | undefined, Extra>;
type Enveloped = ReturnType<YogaServerInstance<ServerContext, RequestContext>['getEnveloped']>;

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, the graphql-ws library) on the HTTP server's own port
 * and `yoga.graphqlEndpoint`. Operations go through Yoga's envelop pipeline (`getEnveloped`), so the
 * plugins that run on parse, validate and execute (armor limits, error masking, metrics) apply as
 * over HTTP, and each operation's context gets its own call budget. Credentials come from `connectionParams`: browsers cannot set headers
 * on a WebSocket. Returns the disposer that closes every socket.
 */
export function attachGraphQLWs(
  httpServer: Server,
  yoga: YogaServerInstance<ServerContext, RequestContext>,
  options: GraphQLWsOptions,
): () => Promise<void> {
  const wss = new WebSocketServer({ server: httpServer, path: yoga.graphqlEndpoint, maxPayload: MAX_MESSAGE_BYTES });
  // Each socket's running operations, by id. An operation's controller is its request's signal, which
  // resolvers pass to upstream reads: it aborts when the client completes the operation or the socket
  // goes away. An entry leaves only when the execution has ended, so the cap counts what really runs.
  const running = new WeakMap<WebSocket, Map<string, AbortController>>();
  wss.on('connection', (socket) => {
    if (options.maxSockets !== undefined && wss.clients.size > options.maxSockets) {
      socket.close(CLOSE_TOO_MANY_CONNECTIONS, 'Too many connections: retry later');
      return;
    }
    const operations = new Map<string, AbortController>();
    running.set(socket, operations);
    socket.on('message', (data, isBinary) => {
      const id = !isBinary && completedId(data);
      if (id) operations.get(id)?.abort();
    });
    socket.once('close', () => {
      for (const controller of operations.values()) controller.abort();
      operations.clear();
    });
  });
  // Each operation executes through its own enveloped instance (graphql-yoga's recipe passes it as the
  // rootValue; keyed by context here, resolvers see the same root as over HTTP).
  const envelopedByContext = new WeakMap<object, Enveloped>();
  // The HTTP path's introspection switch keys on HTTP requests, which never run here: add its rule.
  const extraRules = options.production ? [NoSchemaIntrospectionCustomRule] : undefined;

  const server = useServer(
    {
      isProd: options.production,
      execute: (args) => envelopedByContext.get(args.contextValue as object)!.execute(args) as OperationResult,
      subscribe: (args) => envelopedByContext.get(args.contextValue as object)!.subscribe(args) as OperationResult,
      onSubscribe: async (ctx, id, params) => {
        const operations = running.get(ctx.extra.socket);
        if (!operations) return [new GraphQLError('The connection is closed.')];
        // graphql-ws forgets an id on the client's `complete`, before its execution ends: a reused id
        // would let one entry stand for two running operations.
        if (operations.has(id)) return [badUserInput(`Operation ${id} is still running.`)];
        if (operations.size >= MAX_OPERATIONS_PER_SOCKET) return [tooManyOperations()];
        const controller = new AbortController();
        operations.set(id, controller);
        try {
          const prepared = await prepare(ctx, params, controller.signal);
          if (Array.isArray(prepared)) operations.delete(id); // refused: nothing runs
          return prepared;
        } catch (error) {
          operations.delete(id);
          throw error;
        }
      },
      // Called once an operation's execution has ended, whether it ran out, failed or was completed by the client.
      onComplete: (ctx, id) => {
        running.get(ctx.extra.socket)?.delete(id);
      },
    },
    wss,
  );

  /** The operation's execution arguments, or the errors that answer it (syntax, validation, limits). */
  async function prepare(ctx: WsContext, params: SubscribePayload, signal: AbortSignal): Promise<ExecutionArgs | readonly GraphQLError[]> {
    // No Fetch request exists here; this one stands for the operation, so the plugins and the
    // resolvers read its headers and abort signal as they do over HTTP. A POST: Yoga's parse hook
    // refuses mutations on GET requests. No `onRequest` runs here: the caller is read from the
    // credential headers now, as `useRequestDecisions` reads it over HTTP.
    const headers = credentialHeaders(ctx.connectionParams);
    const request = new Request(new URL(yoga.graphqlEndpoint, 'http://localhost'), { method: 'POST', headers, signal });
    const enveloped = yoga.getEnveloped({
      request,
      params,
      connectionParams: ctx.connectionParams,
      req: ctx.extra.request,
      socket: ctx.extra.socket,
      credentials: readCredentials(headers),
    });
    // The same refusal as over HTTP (plugins/request-decisions.ts), before anything walks the variables.
    const refusal = requestShapeRefusal(params);
    if (refusal) return [refusal];
    const schema = enveloped.schema as GraphQLSchema;
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query) as DocumentNode;
      const errors = enveloped.validate(schema, document, extraRules) as readonly GraphQLError[];
      if (errors.length > 0) return errors;
    } catch (error) {
      // Syntax errors and the armor limits are thrown; answer the operation with them, as thrown out
      // of here they would close the whole socket.
      if (error instanceof GraphQLError) return [error];
      throw error;
    }
    const contextValue = await enveloped.contextFactory();
    envelopedByContext.set(contextValue, enveloped);
    return { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue };
  }

  return async () => {
    const cut = setTimeout(() => {
      for (const client of wss.clients) client.terminate();
    }, CLOSE_GRACE_MS);
    try {
      await server.dispose();
    } finally {
      clearTimeout(cut);
    }
  };
}

function tooManyOperations(): GraphQLError {
  return gatewayError(
    `This connection already runs ${MAX_OPERATIONS_PER_SOCKET} operations: complete one before starting another.`,
    'RATE_LIMITED',
    { retryAfterSeconds: null },
  );
}

/** The id of a `complete` message (the client ends an operation); `null` for any other message. */
function completedId(data: RawData): string | null {
  // `{"id":"…","type":"complete"}`: short, so longer messages (subscribes) are not parsed a second time.
  const size = Array.isArray(data) ? data.reduce((n, chunk) => n + chunk.length, 0) : data.byteLength;
  if (size > COMPLETE_MESSAGE_MAX_BYTES) return null;
  try {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    const message: unknown = JSON.parse(bytes.toString());
    if (typeof message !== 'object' || message === null) return null;
    const { type, id } = message as { type?: unknown; id?: unknown };
    return type === 'complete' && typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** The credential headers a caller put in `connectionParams`; anything else there is ignored. */
function credentialHeaders(connectionParams: unknown): Headers {
  const headers = new Headers();
  if (typeof connectionParams !== 'object' || connectionParams === null) return headers;
  for (const [name, value] of Object.entries(connectionParams)) {
    const key = name.toLowerCase();
    if (typeof value !== 'string' || !CREDENTIAL_PARAMS.includes(key)) continue;
    try {
      headers.set(key, value);
    } catch {
      // Not a valid header value (a line break, say): treated as absent, as over HTTP it could not be sent.
    }
  }
  return headers;
}
