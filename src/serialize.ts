import type { ExecutionResult } from 'graphql';
import { processRegularResult, type FetchAPI } from 'graphql-yoga';

/** An answer's status, headers and body text as Yoga's JSON result processor makes them. */
export interface ProcessedResult {
  readonly body: string;
  readonly init: { readonly status: number; readonly headers: Readonly<Record<string, string>> };
}

/** Yoga's result processing with a Response that only keeps what it is given: no Response made. */
class Captured implements ProcessedResult {
  constructor(
    readonly body: string,
    readonly init: { status: number; headers: Record<string, string> },
  ) {}
}
const CAPTURE = { Response: Captured } as unknown as FetchAPI;

/** The 200 answer's init per media type, as Yoga's processor names its one header; read, never written. */
const plainInits = new Map<string, ProcessedResult['init']>();
function plainInit(mediaType: string): ProcessedResult['init'] {
  let init = plainInits.get(mediaType);
  if (!init) plainInits.set(mediaType, (init = Object.freeze({ status: 200, headers: Object.freeze({ 'Content-Type': `${mediaType}; charset=utf-8` }) })));
  return init;
}

/**
 * A single result's status, headers and body as Yoga's `processRegularResult` makes them. A result
 * without errors and extensions, serialized by `JSON.stringify` (graphql-jit's serializer with its
 * default options), is all Yoga would do nothing to: its internals are only in errors and
 * `extensions.http`, and its status is 200. That result is written by `JSON.stringify` at once, the
 * same bytes, without Yoga's error scan, its headers object and its processor's closures; anything
 * else (errors, extensions, another serializer, a stream) is Yoga's own processing. `media` is the
 * negotiated media type (`application/json` or `application/graphql-response+json`).
 */
export function processResult(result: ExecutionResult, media: string): ProcessedResult {
  const { stringify } = result as { stringify?: unknown };
  if (result.errors === undefined && result.extensions === undefined && (stringify === undefined || stringify === JSON.stringify) && !(Symbol.asyncIterator in result)) {
    return { body: JSON.stringify(result), init: plainInit(media) };
  }
  return processRegularResult(result, CAPTURE, media) as unknown as ProcessedResult;
}
