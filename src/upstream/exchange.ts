import type { Dispatcher } from 'undici';
import { ERROR_BODY_LIMIT, overBudget, tooLarge, type BodyLimits } from './body.js';
import type { ServiceName } from './errors.js';

/**
 * One HTTP exchange on the shared agent, its answer read whole into memory within bounds, through
 * undici's dispatch handler: no `Readable` body, no async iterator per chunk and no stream teardown,
 * which `request()` + `for await` cost on every call (a third of an upstream call's CPU, measured).
 * The caps are body.ts's: a declared or actual size over the call's cap, or over the process-wide budget
 * of bytes being read at once, fails the call at once and drops the rest unread.
 */

export interface Exchange {
  origin: string;
  /** Path and query. */
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  /** Aborts the exchange with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** An answer as read: its status and headers, and its body as text (an error answer's within `ERROR_BODY_LIMIT`). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: number;
}

/**
 * Sends `exchange` and reads its answer, then hands it to `use` while the body's bytes still count in
 * the budget (a parse holds as much again as the text); the budget gets them back after, whatever `use`
 * does. A 2xx body is read within `limits.maxBytes`; a 3xx body is dropped; an error answer's body is read
 * for its message within `ERROR_BODY_LIMIT`, and one that breaks that cap reads as empty.
 */
export function exchange<T>(
  agent: Dispatcher,
  service: ServiceName,
  request: Exchange,
  limits: BodyLimits,
  use: (answer: Answer) => T,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const { signal } = request;
    let controller: Dispatcher.DispatchController | null = null;
    let settled = false;
    let status = 0;
    let headers: Answer['headers'] = {};
    let cap = limits.maxBytes;
    /** Whether the body is kept: 2xx and error answers; a 3xx answer's is dropped. */
    let keep = true;
    /** Whether breaking the cap fails the call (2xx) or just empties the text (an error answer's message). */
    let strict = true;
    let overCap = false;
    let taken = 0;
    const chunks: Buffer[] = [];

    const finish = (error: Error | undefined, answer?: Answer): void => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (error !== undefined) {
        limits.inFlight?.give(taken);
        reject(error);
        return;
      }
      try {
        resolve(use(answer!));
      } catch (thrown) {
        reject(asError(thrown));
      } finally {
        limits.inFlight?.give(taken);
      }
    };
    const fail = (error: Error): void => {
      if (settled) return;
      // The reason reaches onResponseError, which does nothing more once settled.
      controller?.abort(error);
      finish(error);
    };
    const onAbort = (): void => fail(asError(signal!.reason));

    if (signal?.aborted) {
      reject(asError(signal.reason));
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });

    agent.dispatch(
      { origin: request.origin, path: request.path, method: request.method, headers: request.headers, body: request.body ?? null },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('settled before the request started'));
        },
        onResponseStart(_c, statusCode, responseHeaders) {
          // 1xx informational answers come before the real one.
          if (statusCode < 200) return;
          status = statusCode;
          headers = responseHeaders;
          if (status >= 300 && status < 400) keep = false;
          else if (status >= 400) {
            cap = ERROR_BODY_LIMIT;
            strict = false;
          }
          const declared = Number(headers['content-length']);
          if (keep && Number.isFinite(declared) && declared > cap) {
            if (strict) fail(tooLarge(service, status, cap));
            else overCap = true;
          }
        },
        onResponseData(_c, chunk) {
          if (settled || !keep || overCap) return;
          if (taken + chunk.length > cap) {
            if (strict) fail(tooLarge(service, status, cap));
            else overCap = true;
            return;
          }
          if (limits.inFlight && !limits.inFlight.take(chunk.length)) {
            fail(overBudget(service, status));
            return;
          }
          taken += chunk.length;
          chunks.push(chunk);
        },
        onResponseEnd() {
          if (settled) return;
          const text = overCap || !keep ? '' : chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, taken).toString('utf8');
          chunks.length = 0;
          finish(undefined, { status, headers, text, bytes: taken });
        },
        onResponseError(_c, error) {
          finish(error);
        },
      },
    );
  });
}

const asError = (reason: unknown): Error => (reason instanceof Error ? reason : new Error(String(reason)));
