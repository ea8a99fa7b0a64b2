import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { toGraphQLError } from '../src/errors.js';
import { UpstreamError, type UpstreamErrorKind } from '../src/upstream/errors.js';

/** README.md, "Errors": the only codes a caller may see. */
const PUBLIC_CODES = ['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'UPSTREAM_UNAVAILABLE', 'RATE_LIMITED', 'QUERY_TOO_COMPLEX'];

const upstream = (kind: UpstreamErrorKind) =>
  new UpstreamError({ service: 'alerts', kind, message: 'GET http://alerts.internal/v2/x?token=secret failed: stack at foo.ts:1' });

describe('toGraphQLError: upstream failures as the public errors of README.md', () => {
  it.each<[UpstreamErrorKind, string]>([
    ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
    ['FORBIDDEN', 'FORBIDDEN'],
    ['RATE_LIMITED', 'RATE_LIMITED'],
    ['TOO_MANY_CALLS', 'QUERY_TOO_COMPLEX'],
    ['NOT_FOUND', 'BAD_USER_INPUT'],
    ['BAD_REQUEST', 'BAD_USER_INPUT'],
    ['UNPROCESSABLE', 'BAD_USER_INPUT'],
    ['CONFLICT', 'BAD_USER_INPUT'],
    ['UNAVAILABLE', 'UPSTREAM_UNAVAILABLE'],
  ])('%s becomes %s, with none of the upstream text', (kind, code) => {
    const error = toGraphQLError(upstream(kind));
    expect(error.extensions['code']).toBe(code);
    expect(PUBLIC_CODES).toContain(error.extensions['code']);
    expect(JSON.stringify(error.toJSON())).not.toMatch(/alerts\.internal|secret|foo\.ts/);
  });

  it('passes a GraphQL error through, and masks anything else', () => {
    const own = new GraphQLError('mine', { extensions: { code: 'BAD_USER_INPUT' } });
    expect(toGraphQLError(own)).toBe(own);
    const masked = toGraphQLError(new Error('ECONNRESET at 10.0.0.7'));
    expect(masked.message).toBe('Unexpected error.');
    expect(masked.extensions['code']).toBeUndefined();
  });
});
