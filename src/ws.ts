import type { Server } from 'node:http';
import { GraphQLError, NoSchemaIntrospectionCustomRule, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Context, ServerContext } from './context.js';

/** `connectionParams` keys read as the headers of the same name over HTTP (any case). */
const CREDENTIAL_PARAMS = ['authorization', 'x-service-client-key', 'x-service-api-key'];
/** A message is one operation: far below ws's default of 100 MiB. */
const MAX_MESSAGE_BYTES = 1024 * 1024;
/** On shutdown, how long a client gets to answer the close frame before its socket is cut. */
const CLOSE_GRACE_MS = 2000;
/**
 * Operations one socket may run at once (subscriptions mostly: queries end by themselves). Each live
 * subscription holds a listener and its own loaders, so one client must not open them without bound.
 */
export const MAX_OPERATIONS_PER_SOCKET = 100;

export interface GraphQLWsOptions {
  /** Production refuses introspection, as the HTTP endpoint does. */
  production: boolean;
}

type Enveloped = ReturnType<YogaServerInstance<ServerContext, Context>['getEnveloped']>;

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, the graphql-ws library) on the HTTP server's own port
 * and `yoga.graphqlEndpoint`. Operations go through Yoga's envelop pipeline (`getEnveloped`), so the
 * plugins that run on parse, validate and execute (armor limits, the call budget, error masking,
 * metrics) apply as over HTTP. Credentials come from `connectionParams`: browsers cannot set headers
 * on a WebSocket. Returns the disposer that closes every socket.
 */
export function attachGraphQLWs(
  httpServer: Server,
  yoga: YogaServerInstance<ServerContext, Context>,
  options: GraphQLWsOptions,
): () => Promise<void> {
  const wss = new WebSocketServer({ server: httpServer, path: yoga.graphqlEndpoint, maxPayload: MAX_MESSAGE_BYTES });
  // Resolvers pass `ctx.request.signal` to upstream calls: it aborts when the socket goes away.
  const signals = new WeakMap<WebSocket, AbortSignal>();
  wss.on('connection', (socket) => {
    const controller = new AbortController();
    signals.set(socket, controller.signal);
    socket.once('close', () => controller.abort());
  });
  // Each operation executes through its own enveloped instance (graphql-yoga's recipe passes it as the
  // rootValue; keyed by context here, resolvers see the same root as over HTTP).
  const envelopedByContext = new WeakMap<object, Enveloped>();
  // The HTTP path's introspection switch keys on HTTP requests, which never run here: add its rule.
  const extraRules = options.production ? [NoSchemaIntrospectionCustomRule] : undefined;

  const server = useServer(
    {
      isProd: options.production,
      execute: (args) => envelopedByContext.get(args.contextValue as object)!.execute(args),
      subscribe: (args) => envelopedByContext.get(args.contextValue as object)!.subscribe(args),
      onSubscribe: async (ctx, _id, params) => {
        // graphql-ws has already registered this operation: the count includes it.
        if (Object.keys(ctx.subscriptions).length > MAX_OPERATIONS_PER_SOCKET) return [tooManyOperations()];
        const { socket } = ctx.extra;
        // No Fetch request exists here; this one stands for the operation, so `createContext` and the
        // resolvers read credentials and the abort signal from it as they do over HTTP.
        const request = new Request(new URL(yoga.graphqlEndpoint, 'http://localhost'), {
          headers: credentialHeaders(ctx.connectionParams),
          signal: signals.get(socket) ?? AbortSignal.abort(),
        });
        const enveloped = yoga.getEnveloped({
          request,
          params,
          connectionParams: ctx.connectionParams,
          req: ctx.extra.request,
          socket,
        });
        const { schema, parse, validate } = enveloped;
        let document;
        try {
          document = parse(params.query);
          const errors = validate(schema, document, extraRules);
          if (errors.length > 0) return errors;
        } catch (error) {
          // Syntax errors and the armor limits are thrown; answer the operation with them, as thrown out
          // of here they would close the whole socket.
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const contextValue = await enveloped.contextFactory();
        envelopedByContext.set(contextValue, enveloped);
        const args: ExecutionArgs = { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue };
        return args;
      },
    },
    wss,
  );

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
  return new GraphQLError(
    `This connection already runs ${MAX_OPERATIONS_PER_SOCKET} operations: complete one before starting another.`,
    { extensions: { code: 'RATE_LIMITED', retryAfterSeconds: null } },
  );
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
