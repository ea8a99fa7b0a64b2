import { GraphQLError } from 'graphql';

/**
 * Deepest nesting of arrays and objects accepted in `variables` and `extensions`. Real variables nest
 * under 10 (a send's recipients, a filter's lists); the walkers after this one (the response cache's
 * key, the cost's memo key, input coercion, logging) recurse once per level, and JSON.stringify
 * overflowed the stack at some thousands.
 */
export const MAX_VARIABLES_NESTING = 64;

/** The parameters a request's shape is checked on (HTTP and WebSocket alike). */
export interface RequestParams {
  query?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

/**
 * Refuses, before anything else reads them, parameters of a shape no later code should have to walk:
 * a `query` that is not a string (a number, an array, an object with a `length`), and `variables` or
 * `extensions` nesting deeper than `MAX_VARIABLES_NESTING` or holding a number JSON cannot write back
 * (`1e400` parses as Infinity, which JSON.stringify writes as null: it would share `null`'s cache key).
 * HTTP 400 with Yoga's own code for a malformed request, `BAD_REQUEST`. The error that refuses these
 * parameters, or null when their shape is fine: checked in `onParams` before the plugins that read
 * parameters (plugins/request-decisions.ts), and by the WebSocket server for each operation (ws.ts).
 */
export function requestShapeRefusal(params: RequestParams): GraphQLError | null {
  if (params.query != null && typeof params.query !== 'string') {
    return badRequest(`Expected "query" param to be a string, but given ${Array.isArray(params.query) ? 'array' : typeof params.query}.`);
  }
  for (const name of ['variables', 'extensions'] as const) {
    const problem = jsonProblem(params[name], MAX_VARIABLES_NESTING);
    if (problem) return badRequest(`"${name}" ${problem}.`);
  }
  return null;
}

/**
 * What is wrong with a parsed JSON value, or null: arrays and objects nested deeper than `maxDepth`,
 * or a number that is not finite. Iterative (a stack of its own), so no depth overflows it; it stops
 * at the first problem.
 */
function jsonProblem(value: unknown, maxDepth: number): string | null {
  // Absent parameters (most requests' `extensions`) and plain values need no walk.
  if (typeof value !== 'object' || value === null) return typeof value === 'number' && !Number.isFinite(value) ? NOT_FINITE : null;
  const stack: { value: object; depth: number }[] = [];
  const visit = (item: unknown, depth: number): string | null => {
    if (typeof item === 'number') return Number.isFinite(item) ? null : NOT_FINITE;
    if (typeof item !== 'object' || item === null) return null;
    if (depth > maxDepth) return `nests arrays and objects more than ${maxDepth} deep`;
    stack.push({ value: item, depth });
    return null;
  };
  let problem = visit(value, 0);
  while (!problem && stack.length > 0) {
    const { value: container, depth } = stack.pop()!;
    for (const item of Array.isArray(container) ? container : Object.values(container)) {
      if ((problem = visit(item, depth + 1))) break;
    }
  }
  return problem;
}

const NOT_FINITE = 'holds a number too large for JSON (such as 1e400)';

function badRequest(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
}
