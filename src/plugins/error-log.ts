import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { YogaLogger } from 'graphql-yoga';
import type { Context } from '../context.js';
import { MissingCredentialsError } from '../credentials.js';
import type { Logger } from '../logger.js';
import { isUpstreamError, UpstreamError } from '../upstream/errors.js';
import { requestIdOf } from '../request-id.js';

/** Errors this plugin has written a line for: Yoga's own line for them (which knows no request) is dropped. */
const logged = new WeakSet<object>();

/**
 * One log line per field error of an operation, with the client's address (`client`, as the trusted
 * proxies report it) and the request's id (`requestId`, as echoed in
 * `X-Request-Id`), the field's path and the original failure, written before the error is masked:
 * an upstream failure at `warn` (at `info` when the operation's own deadline or client ended it), anything
 * unexpected at `error`. Expected refusals are logged without a stack: a field that needs credentials the
 * request lacks at `debug` (a signed-out screen asks for the viewer), credentials the alerts service refused at `info`. Errors raised on purpose for the caller (bad input, ...) are not logged, as
 * Yoga does not log them either. Deferred and streamed parts included (each part is handed in).
 * The request's id and the client's address are found for the first error only: most results have none.
 */
export function errorLogger(logger: Logger): (result: ExecutionPart, context: Context) => void {
  function log(error: GraphQLError, who: { requestId: string; client: string | null }): void {
    const original = error.originalError;
    if (!original || original instanceof GraphQLError) return;
    logged.add(error);
    const { requestId, client } = who;
    const fields = { requestId, client, path: error.path?.join('.'), err: original };
    // An expected refusal (no credentials, or credentials the alerts service refused) is no fault of the gateway: no stack.
    if (original instanceof MissingCredentialsError) logger.debug({ requestId, client, path: fields.path }, 'field refused: no credentials');
    else if (isUpstreamError(original, 'UNAUTHENTICATED') || isUpstreamError(original, 'FORBIDDEN'))
      logger.info({ requestId, client, path: fields.path, service: original.service, status: original.status }, 'field refused: credentials refused upstream');
    else if (!(original instanceof UpstreamError)) logger.error(fields, 'unexpected error in a field');
    else if (original.code === 'DEADLINE' || original.code === 'ABORTED') logger.info(fields, 'upstream call ended by the operation');
    else logger.warn(fields, 'upstream failure in a field');
  }
  return (result, context) => {
    if (!result.errors?.length && !result.incremental) return;
    const errors = [...(result.errors ?? []), ...(result.incremental ?? []).flatMap((part) => part.errors ?? [])];
    if (errors.length === 0) return;
    // The client's address as the trusted proxies report it (as the rate limit counts it).
    const who = { requestId: requestIdOf(context.request), client: context.services.clientAddress((context as Context & { req?: IncomingMessage }).req) };
    for (const error of errors) log(error, who);
  };
}

/** A result, or a part of a deferred or streamed one, as the hooks after execution see it. */
export interface ExecutionPart {
  errors?: readonly GraphQLError[];
  incremental?: readonly { errors?: readonly GraphQLError[] }[];
}

/**
 * The logger Yoga writes through (`logging`): the gateway's, except Yoga's line for an error that
 * `errorLogger` already wrote with its request id.
 */
export function yogaLogging(logger: Logger): YogaLogger {
  const write =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]): void => {
      if (level === 'error' && args.length === 1 && typeof args[0] === 'object' && args[0] !== null && logged.has(args[0])) return;
      Reflect.apply(logger[level], logger, args);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
