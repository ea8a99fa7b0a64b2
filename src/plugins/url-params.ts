import type { GraphQLParams } from 'graphql-yoga';
import { gatewayError } from '../errors.js';

/**
 * GraphQL parameters sent as URL parameters (a GET's query string, or a form-encoded POST body) with
 * `variables` or `extensions` that are not JSON objects are the caller's mistake: 400 `BAD_USER_INPUT`
 * naming the parameter. Yoga's own parser lets the `JSON.parse` error escape as a 500 with an
 * error-level log line. This parser replaces it for those two kinds of request and reads the same
 * four parameters (`query`, `operationName`, `variables`, `extensions`). Undefined for any other
 * request, which Yoga's own parsers read (plugins/request-decisions.ts sets it).
 */
export function strictUrlParamsParser(request: Request): ((request: Request) => Promise<GraphQLParams> | GraphQLParams) | undefined {
  if (request.method === 'GET') return () => paramsOf(new URLSearchParams(request.url.slice(request.url.indexOf('?') + 1 || request.url.length)));
  if (request.method === 'POST' && isFormUrlEncoded(request)) return async () => paramsOf(new URLSearchParams(await request.text()));
  return undefined;
}

function isFormUrlEncoded(request: Request): boolean {
  const type = request.headers.get('content-type')?.split(',')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/x-www-form-urlencoded' || type.startsWith('application/x-www-form-urlencoded;');
}

function paramsOf(params: URLSearchParams): GraphQLParams {
  return {
    query: params.get('query') || undefined,
    operationName: params.get('operationName') || undefined,
    variables: jsonObject(params, 'variables'),
    extensions: jsonObject(params, 'extensions'),
  };
}

function jsonObject(params: URLSearchParams, name: string): Record<string, unknown> | undefined {
  const raw = params.get(name);
  if (!raw) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalid(name);
  }
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(name);
  return value as Record<string, unknown>;
}

function invalid(name: string) {
  return gatewayError(`The "${name}" parameter must be a JSON object (URL-encoded).`, 'BAD_USER_INPUT', { http: { status: 400 } });
}
