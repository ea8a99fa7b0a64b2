import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError, type YogaMaskedErrorOpts } from 'graphql-yoga';
import { MissingCredentialsError } from './credentials.js';
import { Withheld, type Passthrough } from './models/passthrough.js';
import { UpstreamError } from './upstream/errors.js';

/** `extensions.code` of every error the gateway raises on purpose (README.md, "Errors"). */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'QUERY_TOO_COMPLEX';

/** An error with one of the public codes: the only way the gateway builds one, so the list holds. */
export function gatewayError(message: string, code: ErrorCode, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

export function badUserInput(message: string, field?: string): GraphQLError {
  return gatewayError(message, 'BAD_USER_INPUT', field ? { field } : {});
}

export function unauthenticated(message = 'Sign in: send Authorization: Bearer <token> and X-Service-Client-Key.'): GraphQLError {
  return gatewayError(message, 'UNAUTHENTICATED');
}

export function upstreamUnavailable(service: string, retryable = true): GraphQLError {
  return gatewayError(`The ${service} service is unavailable; try again shortly.`, 'UPSTREAM_UNAVAILABLE', { upstream: service, retryable });
}

/**
 * Yoga's `maskedErrors.maskError`: the one place where the failures resolvers and data sources let through
 * meet the public error codes. An `UpstreamError` becomes its public error (`toGraphQLError`), a
 * `MissingCredentialsError` `UNAUTHENTICATED`, keeping the field's path and locations; anything else
 * is masked as Yoga does (unless it is a GraphQLError raised on purpose).
 */
export const maskError: YogaMaskedErrorOpts['maskError'] = (error, message, isDev) => {
  const mapped = publicError(error instanceof GraphQLError ? error.originalError : error);
  if (!mapped) return yogaMaskError(error, message, isDev);
  if (!(error instanceof GraphQLError)) return mapped;
  return new GraphQLError(mapped.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: mapped.extensions,
  });
};

/** The public error of a failure the layers below the schema raise; `null` for anything else. */
function publicError(error: unknown): GraphQLError | null {
  if (error instanceof UpstreamError) return toGraphQLError(error);
  if (error instanceof MissingCredentialsError) {
    return error.needed === 'apiKey' ? unauthenticated("Sending needs the app's key: send the X-Service-Api-Key header.") : unauthenticated();
  }
  return null;
}

/**
 * Turns any failure from the upstream layer into the GraphQL error a caller should see; nothing
 * internal (URL, token, stack) passes. Used by `maskError`.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (!(error instanceof UpstreamError)) return new GraphQLError('Unexpected error.', { originalError: error as Error });
  switch (error.kind) {
    case 'UNAUTHENTICATED':
      return unauthenticated('The alerts service did not accept your credentials.');
    case 'FORBIDDEN':
      return gatewayError('You are not allowed to do this.', 'FORBIDDEN');
    case 'RATE_LIMITED':
      return gatewayError(`The ${error.service} service is rate limiting; retry later.`, 'RATE_LIMITED', {
        upstream: error.service,
        retryAfterSeconds: error.retryAfterSeconds ?? null,
      });
    case 'TOO_MANY_CALLS':
      return gatewayError(
        'This operation needs too many upstream calls: ask for fewer items (smaller lists, fewer aliases) per request.',
        'QUERY_TOO_COMPLEX',
      );
    case 'NOT_FOUND':
    case 'BAD_REQUEST':
    case 'UNPROCESSABLE':
    case 'CONFLICT':
      // The gateway checks input before calling and answers unknown ids with null, so this is a
      // disagreement with the upstream; its own text can carry internals (hosts, queries, stack
      // frames), so it never reaches the caller. NOT_FOUND is no public code (README.md, "Errors").
      return gatewayError(`The ${error.service} service refused the request.`, 'BAD_USER_INPUT', { upstream: error.service });
    default:
      // The operation's deadline passed while this field waited: the upstream may be fine, and a retry
      // (or a longer X-Request-Timeout-Ms) may well get the value.
      if (error.code === 'DEADLINE') {
        return gatewayError(`The ${error.service} service did not answer before the request's deadline.`, 'UPSTREAM_UNAVAILABLE', {
          upstream: error.service,
          retryable: true,
          reason: 'DEADLINE',
        });
      }
      return upstreamUnavailable(error.service, error.retryable);
  }
}

/**
 * A passthrough value as a field serves it: past the bounds (`Withheld`), a field error on that field
 * alone, the rest of the answer served.
 */
export function passthrough(value: Passthrough, service: string): Record<string, unknown> | null {
  if (!(value instanceof Withheld)) return value;
  throw gatewayError(`The ${service} service sent this value ${value.reason}: the gateway does not pass it on.`, 'UPSTREAM_UNAVAILABLE', {
    upstream: service,
    retryable: false,
    reason: 'PASSTHROUGH_BOUNDS',
  });
}
