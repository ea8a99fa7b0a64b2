import { GraphQLError } from 'graphql';
import { UpstreamError } from './upstream/http.js';

/** `extensions.code` of every error the gateway raises on purpose (API.md, "Errors"). */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'UPSTREAM_UNAVAILABLE'
  | 'RATE_LIMITED'
  | 'QUERY_TOO_COMPLEX';

export function badUserInput(message: string, field?: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}) } });
}

export function unauthenticated(message = 'Sign in: send Authorization: Bearer <token> and X-Service-Client-Key.'): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'UNAUTHENTICATED' } });
}

export function upstreamUnavailable(service: string, retryable = true): GraphQLError {
  return new GraphQLError(`The ${service} service is unavailable; try again shortly.`, {
    extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: service, retryable },
  });
}

/**
 * Turns any failure from the upstream layer into the GraphQL error a caller should see. The one place
 * where upstream failures meet the public error codes; nothing internal (URL, token, stack) passes.
 */
export function toGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  if (!(error instanceof UpstreamError)) return new GraphQLError('Unexpected error.', { originalError: error as Error });
  switch (error.kind) {
    case 'UNAUTHENTICATED':
      return unauthenticated('The alerts service did not accept your credentials.');
    case 'FORBIDDEN':
      return new GraphQLError('You are not allowed to do this.', { extensions: { code: 'FORBIDDEN' } });
    case 'RATE_LIMITED':
      return new GraphQLError(`The ${error.service} service is rate limiting; retry later.`, {
        extensions: { code: 'RATE_LIMITED', upstream: error.service, retryAfterSeconds: error.retryAfterSeconds ?? null },
      });
    case 'TOO_MANY_CALLS':
      return new GraphQLError(
        'This operation needs too many upstream calls: ask for fewer items (smaller lists, fewer aliases) per request.',
        { extensions: { code: 'QUERY_TOO_COMPLEX' } },
      );
    case 'NOT_FOUND':
      return new GraphQLError('Not found.', { extensions: { code: 'NOT_FOUND', upstream: error.service } });
    case 'BAD_REQUEST':
    case 'UNPROCESSABLE':
    case 'CONFLICT':
      // The gateway checks input before calling, so this is a disagreement with the upstream; its own
      // text can carry internals (hosts, queries, stack frames), so it never reaches the caller.
      return new GraphQLError(`The ${error.service} service refused the request.`, {
        extensions: { code: 'BAD_USER_INPUT', upstream: error.service },
      });
    default:
      return upstreamUnavailable(error.service, error.retryable);
  }
}
