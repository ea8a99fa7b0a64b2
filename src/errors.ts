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
    case 'BAD_REQUEST':
    case 'UNPROCESSABLE':
    case 'CONFLICT':
      return new GraphQLError(error.upstreamMessage ?? 'The request was refused.', {
        extensions: { code: 'BAD_USER_INPUT', upstream: error.service },
      });
    default:
      return upstreamUnavailable(error.service, error.retryable);
  }
}
