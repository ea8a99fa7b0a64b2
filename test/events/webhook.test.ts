import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/plugins/events-webhook.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { postWebhook, priceChange, startEventsGateway, subscribeEvents, trending } from './helpers.js';

const EVENTS = 'subscription { events { eventId kind } }';

describe('POST /webhooks/events', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startEventsGateway();
  });
  afterAll(() => gw?.close());

  it('accepts a signed batch and delivers its events to subscribers', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const answer = await postWebhook(gw, { events: [priceChange('ok-1'), trending('ok-2')] });
    expect(answer).toEqual({ status: 200, body: { received: 2, duplicates: 0, ignored: 0 } });
    expect((await first)?.data.events).toEqual({ eventId: 'ok-1', kind: 'TOKEN_PRICE_CHANGE' });
    expect((await stream.next())?.data.events).toEqual({ eventId: 'ok-2', kind: 'TRENDING_TOKEN' });
    await stream.close();
  });

  it('refuses a bad signature, a wrong secret and an expired or future timestamp with 401, publishing nothing', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const body = { events: [priceChange('rejected')] };
    const now = Date.now();

    const wrongSecret = await postWebhook(gw, body, { secret: 'not-the-secret' });
    const expired = await postWebhook(gw, body, { nowMs: now - 301_000 });
    const future = await postWebhook(gw, body, { nowMs: now + 301_000 });
    const tampered = await postWebhook(gw, body, { headers: { 'x-service-signature': `sha256=${'0'.repeat(64)}` } });
    const malformed = await postWebhook(gw, body, { headers: { 'x-service-signature': 'sha256=zz' } });
    const unsigned = await postWebhook(gw, body, { headers: { 'x-service-signature': '', 'x-service-timestamp': '' } });
    for (const answer of [wrongSecret, expired, future, tampered, malformed, unsigned]) expect(answer.status).toBe(401);
    expect(expired.body.error).toMatch(/300 s/);

    // Within the allowed skew it is accepted; the subscriber's first event is this one, not a rejected one.
    const late = await postWebhook(gw, { events: [priceChange('accepted-after-rejections')] }, { nowMs: now - 290_000 });
    expect(late.status).toBe(200);
    expect((await first)?.data.events.eventId).toBe('accepted-after-rejections');
    await stream.close();
  });

  it('delivers a replayed event id once and reports the repeat', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const body = { events: [priceChange('replayed')] };
    expect((await postWebhook(gw, body)).body).toEqual({ received: 1, duplicates: 0, ignored: 0 });
    expect((await postWebhook(gw, body)).body).toEqual({ received: 1, duplicates: 1, ignored: 0 });
    // A batch repeating an id within itself delivers it once too.
    const batch = { events: [priceChange('twice-in-batch'), priceChange('twice-in-batch')] };
    expect((await postWebhook(gw, batch)).body).toEqual({ received: 2, duplicates: 1, ignored: 0 });
    await postWebhook(gw, { events: [priceChange('after-replay')] });

    expect((await first)?.data.events.eventId).toBe('replayed');
    expect((await stream.next())?.data.events.eventId).toBe('twice-in-batch');
    expect((await stream.next())?.data.events.eventId).toBe('after-replay');
    await stream.close();
  });

  it('ignores unknown kinds and events that break the contract, delivering the rest', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const broken = { ...priceChange('broken'), change: { direction: 'sideways' } };
    const answer = await postWebhook(gw, {
      events: [{ id: 'future-kind', timestamp: '2026-01-05T12:00:00Z', event: 'whale_alert' }, broken, priceChange('kept')],
    });
    expect(answer).toEqual({ status: 200, body: { received: 3, duplicates: 0, ignored: 2 } });
    expect((await first)?.data.events.eventId).toBe('kept');
    await stream.close();
  });

  it('answers 400 to a signed body that is not {"events": [...]}', async () => {
    expect((await postWebhook(gw, '{"events": ')).status).toBe(400);
    expect((await postWebhook(gw, { events: 'none' })).status).toBe(400);
    expect((await postWebhook(gw, [priceChange('bare-array')])).status).toBe(400);
  });

  it(`refuses a body over ${MAX_WEBHOOK_BODY_BYTES / 1024 / 1024} MiB with 413, by Content-Length and by the bytes read`, async () => {
    const big = JSON.stringify({ events: [], padding: 'x'.repeat(MAX_WEBHOOK_BODY_BYTES) });
    expect((await postWebhook(gw, big)).status).toBe(413);

    // No Content-Length: a streamed body is cut off once it passes the limit.
    const chunk = new TextEncoder().encode('x'.repeat(MAX_WEBHOOK_BODY_BYTES / 16));
    let sent = 0;
    const streamed = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 20) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const response = await gw.app.yoga.fetch('http://gateway.test/webhooks/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamed,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(sent).toBeLessThan(20);
  });

  it('takes POST only', async () => {
    const response = await gw.app.yoga.fetch('http://gateway.test/webhooks/events', { method: 'GET' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('without WEBHOOK_SECRET', () => {
  it('answers 404 on the webhook path', async () => {
    const gw = await startTestGateway({ config: { webhookSecret: null } });
    try {
      expect((await postWebhook(gw, { events: [priceChange('no-secret')] })).status).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
