import { parseChunked } from '@discoveryjs/json-ext';
import { bulkhead } from 'cockatiel';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { sha256Pieces } from '../hashing.js';
import { isObject } from '../upstream/read.js';
import { EventsNotPublished, type EventHub } from '../events/hub.js';
import { parseWebhookBody, type ParsedBatch } from '../events/parse.js';
import { createDeliveredBodies, type DeliveredBody } from '../events/seen.js';
import { startSignatureCheck, type SignatureCheck, type Verdict } from '../events/signature.js';
import { loopTurns } from '../events/turns.js';
import { requestIdOf } from '../request-id.js';

export const WEBHOOK_PATH = '/webhooks/events';
/** Largest webhook body accepted (413 beyond): 8 MiB, about 29,000 events of the contract's shape. */
export const MAX_WEBHOOK_BODY_BYTES = 8 * 1024 * 1024;

export interface WebhookOptions {
  /** `WEBHOOK_SECRET`: the plugin is only installed when it is set (the path is 404 otherwise). */
  secret: string;
  events: EventHub;
  logger: Logger;
  maxBodyBytes?: number;
}

/**
 * `POST /webhooks/events` (docs/upstream.md section 4): checks size, then signature and timestamp, then
 * shape, and hands the batch to the hub. Answers as soon as repeats are known; delivery to
 * subscribers is not awaited. A non-2xx answer makes the upstream retry the same batch.
 */
export function useEventsWebhook(options: WebhookOptions): Plugin {
  const { secret, events, logger } = options;
  const maxBodyBytes = options.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
  // A flood of batches queues rather than holding the event loop (and `/health`) for seconds: at most
  // BATCHES_AT_ONCE bodies are read, checked and parsed at once (the others wait in their sockets,
  // unread: memory stays flat), each read within BODY_READ_MS. A body is hashed and parsed in the
  // pieces it arrived in, in slices of a few milliseconds between turns of the event loop, never
  // copied or parsed whole, since one JSON.parse of an 8 MiB batch holds the loop for tens of ms
  // (test/events/webhook-stalls.test.ts bounds the longest stretch). A read body keeps its place until
  // it is parsed, so a flood of batches never waits in memory for its turn. Parsed batches are
  // published concurrently.
  const intake = bulkhead(BATCHES_AT_ONCE, Number.POSITIVE_INFINITY);
  // Bodies delivered whole, by their SHA-256: an upstream retrying a batch it already delivered (its
  // answer was late) is answered without parsing it again, as every event of it is a repeat. With
  // the slices above, a flood of 200 batches of 1 MB (20 distinct) cost the gateway 3.4-3.7 s of CPU,
  // 9.3 s before, on this machine at a load average of 17-22.
  const delivered = createDeliveredBodies();

  async function handle(request: Request, fetchAPI: { Response: typeof Response }): Promise<Response> {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

    if (request.method !== 'POST') return reply(405, { error: 'use POST' }, { allow: 'POST' });
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > maxBodyBytes) return reply(413, { error: `body larger than ${maxBodyBytes} bytes` });
    const batch = await intake.execute(async () => {
      const pieces = await readAtMost(request, maxBodyBytes, BODY_READ_MS);
      if (pieces === 'too-slow') return { status: 408, error: `body not received within ${BODY_READ_MS} ms` };
      if (!pieces) return { status: 413, error: `body larger than ${maxBodyBytes} bytes` };
      return verifyAndRead(request, pieces);
    });
    if ('status' in batch) return reply(batch.status, { error: batch.error });
    if ('repeat' in batch) return reply(200, { received: batch.repeat.events + batch.repeat.ignored, duplicates: batch.repeat.events, ignored: batch.repeat.ignored });

    let outcome;
    try {
      outcome = await events.receive(batch);
    } catch (error) {
      if (!(error instanceof EventsNotPublished)) throw error;
      // The upstream retries on 5xx; the events not published were forgotten, so the retry delivers them.
      return reply(503, { error: 'events could not be delivered; retry later' });
    }
    delivered.set(batch.digest, { events: batch.events.length, ignored: batch.ignored.length });
    return reply(200, { received: batch.events.length + batch.ignored.length, duplicates: outcome.duplicates, ignored: outcome.ignored });
  }

  /** The batch a signed body holds, or the refusal (401, 400) with its reason. */
  async function verifyAndRead(request: Request, pieces: readonly Uint8Array[]): Promise<Read> {
    const check = startSignatureCheck(secret, { timestamp: request.headers.get('x-service-timestamp'), signature: request.headers.get('x-service-signature') });
    const hashed = 'ok' in check ? { verdict: check, digest: '' } : await hashInTurns(check, pieces);
    if (!hashed.verdict.ok) {
      logger.warn({ reason: hashed.verdict.reason, requestId: requestIdOf(request) }, 'webhook: rejected');
      return { status: 401, error: hashed.verdict.reason };
    }
    const repeat = delivered.get(hashed.digest);
    if (repeat) return { repeat };
    // A root value is reported only once it is closed: a body cut short (`{"events": [`) has none,
    // although the parser's own answer would then be `{"events": []}`.
    let body: unknown;
    let roots = 0;
    try {
      roots = await parseChunked(() => piecesInTurns(pieces), { onRootValue: (value) => void (body = value) });
    } catch {
      // not JSON: no root value
    }
    if (roots !== 1) return { status: 400, error: 'body is not valid JSON' };
    const batch = await parseInSlices(body);
    return 'error' in batch ? { status: 400, error: batch.error } : { ...batch, digest: hashed.digest };
  }

  return {
    async onRequest(payload) {
      const { request, url, fetchAPI } = payload;
      if (url.pathname !== WEBHOOK_PATH) return;
      const endResponse = (response: Response) => payload.endResponse(response);
      try {
        endResponse(await handle(request, fetchAPI));
      } catch (err) {
        // 5xx makes the upstream retry later; the ids it already delivered stay deduplicated.
        logger.error({ err, requestId: requestIdOf(request) }, 'webhook: failed');
        endResponse(new fetchAPI.Response(JSON.stringify({ error: 'internal error' }), { status: 500, headers: { 'content-type': 'application/json' } }));
      }
    },
  };
}

/** Events read at a time: a batch of 10,000 takes about 150 ms to read, too long to hold the event loop. */
const PARSE_SLICE = 250;
/** Webhook bodies read and parsed at once. */
const BATCHES_AT_ONCE = 2;
/** Size of the pieces a body is kept, hashed and parsed in (about 0.5 ms of parsing each). */
const PIECE_BYTES = 64 * 1024;
/** How long one body may take to arrive once its reading starts (8 MiB at 1 MB/s): a slow sender does not hold a reader. */
const BODY_READ_MS = 10_000;


/** A signed body read: its batch and digest, a repeat of a delivered body, or the refusal (401, 400) with its reason. */
type Read = (ParsedBatch & { digest: string }) | { repeat: DeliveredBody } | { status: number; error: string };

/** The signature's verdict and the body's SHA-256, a few pieces between turns of the event loop. */
async function hashInTurns(check: SignatureCheck, pieces: readonly Uint8Array[]): Promise<{ verdict: Verdict; digest: string }> {
  const turn = loopTurns();
  const body = sha256Pieces();
  for (const piece of pieces) {
    check.update(piece);
    body.update(piece);
    await turn();
  }
  return { verdict: check.verdict(), digest: body.digest('base64url') };
}

/** The body's pieces for the chunked JSON parser, a few between turns of the event loop. */
async function* piecesInTurns(pieces: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  const turn = loopTurns();
  for (const piece of pieces) {
    yield piece;
    await turn();
  }
}

/** `parseWebhookBody`, a slice of events at a time, yielding to the event loop between slices. */
async function parseInSlices(body: unknown): Promise<ParsedBatch | { error: string }> {
  const whole = parseWebhookBody(isObject(body) && Array.isArray(body['events']) ? { events: [] } : body);
  if ('error' in whole) return whole;
  const events = (body as { events: unknown[] }).events;
  const turn = loopTurns();
  for (let start = 0; start < events.length; start += PARSE_SLICE) {
    await turn();
    const slice = parseWebhookBody({ events: events.slice(start, start + PARSE_SLICE) }) as ParsedBatch;
    whole.events.push(...slice.events);
    whole.ignored.push(...slice.ignored);
  }
  return whole;
}

/**
 * The body in pieces of about PIECE_BYTES (what arrives in smaller pieces is joined: a sender trickling
 * single bytes does not make millions of them); `null` once more than `limit` bytes arrive, `too-slow`
 * past `deadlineMs` (the rest is not read).
 */
async function readAtMost(request: Request, limit: number, deadlineMs: number): Promise<Uint8Array[] | null | 'too-slow'> {
  if (!request.body) return [];
  const reader = request.body.getReader();
  let late = false;
  const timer = setTimeout(() => ((late = true), void reader.cancel().catch(() => {})), deadlineMs);
  const chunks: Uint8Array[] = [];
  let small: Uint8Array[] = [];
  let smallSize = 0;
  const joinSmall = () => {
    if (small.length > 0) chunks.push(small.length === 1 ? small[0]! : Buffer.concat(small, smallSize));
    small = [];
    smallSize = 0;
  };
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (late) return 'too-slow';
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        return null;
      }
      if (value.byteLength >= PIECE_BYTES) {
        joinSmall();
        chunks.push(value);
      } else {
        small.push(value);
        smallSize += value.byteLength;
        if (smallSize >= PIECE_BYTES) joinSmall();
      }
    }
    joinSmall();
  } catch (error) {
    if (late) return 'too-slow';
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return chunks;
}
