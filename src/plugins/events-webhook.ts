import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { bulkhead } from 'cockatiel';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.js';
import { isObject } from '../upstream/read.js';
import { EventsNotPublished, type EventHub } from '../events/hub.js';
import { parseWebhookBody, type ParsedBatch } from '../events/parse.js';
import { verifySignature } from '../events/signature.js';
import { requestIdOf } from './request-id.js';

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
  // BODY_READERS bodies are read at once (the others wait in their sockets, unread: memory stays flat),
  // each within BODY_READ_MS, and checking and reading a batch (an HMAC and a JSON parse of up to
  // 8 MiB) is done one batch at a time, yielding between steps. Batches are published concurrently.
  const intake = bulkhead(BODY_READERS, Number.POSITIVE_INFINITY);
  const reading = bulkhead(1, Number.POSITIVE_INFINITY);

  async function handle(request: Request, fetchAPI: { Response: typeof Response }): Promise<Response> {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      new fetchAPI.Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

    if (request.method !== 'POST') return reply(405, { error: 'use POST' }, { allow: 'POST' });
    const declared = Number(request.headers.get('content-length') ?? 0);
    if (declared > maxBodyBytes) return reply(413, { error: `body larger than ${maxBodyBytes} bytes` });
    const rawBody = await intake.execute(() => readAtMost(request, maxBodyBytes, BODY_READ_MS));
    if (rawBody === 'too-slow') return reply(408, { error: `body not received within ${BODY_READ_MS} ms` });
    if (!rawBody) return reply(413, { error: `body larger than ${maxBodyBytes} bytes` });

    const batch = await reading.execute(() => verifyAndRead(request, rawBody));
    if ('status' in batch) return reply(batch.status, { error: batch.error });

    let outcome;
    try {
      outcome = await events.receive(batch);
    } catch (error) {
      if (!(error instanceof EventsNotPublished)) throw error;
      // The upstream retries on 5xx; the events not published were forgotten, so the retry delivers them.
      return reply(503, { error: 'events could not be delivered; retry later' });
    }
    return reply(200, { received: batch.events.length + batch.ignored.length, duplicates: outcome.duplicates, ignored: outcome.ignored });
  }

  /** The batch a signed body holds, or the refusal (401, 400) with its reason. */
  async function verifyAndRead(request: Request, rawBody: Uint8Array): Promise<ParsedBatch | { status: number; error: string }> {
    await yieldToLoop();
    const verdict = verifySignature(secret, {
      timestamp: request.headers.get('x-service-timestamp'),
      signature: request.headers.get('x-service-signature'),
      rawBody,
    });
    if (!verdict.ok) {
      logger.warn({ reason: verdict.reason, requestId: requestIdOf(request) }, 'webhook: rejected');
      return { status: 401, error: verdict.reason };
    }
    await yieldToLoop();
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(rawBody).toString('utf8'));
    } catch {
      return { status: 400, error: 'body is not valid JSON' };
    }
    const batch = await parseInSlices(body);
    return 'error' in batch ? { status: 400, error: batch.error } : batch;
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
/** Webhook bodies read at once. */
const BODY_READERS = 2;
/** How long one body may take to arrive once its reading starts (8 MiB at 1 MB/s): a slow sender does not hold a reader. */
const BODY_READ_MS = 10_000;

/** `parseWebhookBody`, a slice of events at a time, yielding to the event loop between slices. */
async function parseInSlices(body: unknown): Promise<ParsedBatch | { error: string }> {
  const whole = parseWebhookBody(isObject(body) && Array.isArray(body['events']) ? { events: [] } : body);
  if ('error' in whole) return whole;
  const events = (body as { events: unknown[] }).events;
  for (let start = 0; start < events.length; start += PARSE_SLICE) {
    await yieldToLoop();
    const slice = parseWebhookBody({ events: events.slice(start, start + PARSE_SLICE) }) as ParsedBatch;
    whole.events.push(...slice.events);
    whole.ignored.push(...slice.ignored);
  }
  return whole;
}

/** The body's bytes; `null` once more than `limit` arrive, `too-slow` past `deadlineMs` (the rest is not read). */
async function readAtMost(request: Request, limit: number, deadlineMs: number): Promise<Uint8Array | null | 'too-slow'> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  let late = false;
  const timer = setTimeout(() => ((late = true), void reader.cancel().catch(() => {})), deadlineMs);
  const chunks: Uint8Array[] = [];
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
      chunks.push(value);
    }
  } catch (error) {
    if (late) return 'too-slow';
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks);
}
