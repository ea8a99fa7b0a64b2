import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWebhookBody } from '../../src/events/parse.js';
import { verifySignature } from '../../src/events/signature.js';

const fixture: unknown = JSON.parse(readFileSync(new URL('./fixtures/webhook.json', import.meta.url), 'utf8'));

describe('webhook body → events', () => {
  it('maps each known kind to the gateway model and ignores unknown or malformed ones', () => {
    const batch = parseWebhookBody(fixture);
    expect(batch).toEqual({
      events: [
        {
          kind: 'TOKEN_PRICE_CHANGE',
          eventId: 'evt_01J9Z8K3',
          timestamp: '2026-01-05T12:00:00.000Z',
          assetId: 'solana:So11111111111111111111111111111111111111112',
          symbol: 'SOL',
          window: 'ONE_DAY',
          threshold: 0.1,
          direction: 'DOWN',
          from: { timestamp: '2026-01-04T12:00:00.000Z', priceUsd: 200 },
          to: { timestamp: '2026-01-05T12:00:00.000Z', priceUsd: 178 },
          absolute: -22,
          percentage: -0.11,
        },
        {
          kind: 'TRENDING_TOKEN',
          eventId: 'evt_01J9Z8K4',
          timestamp: '2026-01-05T12:00:01.500Z',
          assetId: 'solana:GradTokenAddress1111111111111111111111111111',
          symbol: 'GRAD',
          metrics: { launchpad: 'pump.fun', marketCapUsd: 850000, liquidityUsd: 64000, holders: 1873, priceUsd: 0.00085, priceChange24h: null },
        },
        {
          kind: 'TOKEN_LAST_TRADE_PRICE_CHANGE',
          eventId: 'evt_01J9Z8K5',
          timestamp: '2026-01-05T12:00:02.000Z',
          assetId: 'solana:JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
          symbol: 'JUP',
          walletAddress: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
          lastTradePrice: 0.8,
          currentPrice: 0.92,
          percentage: 0.15,
          direction: 'UP',
        },
      ],
      ignored: [
        { id: 'evt_01J9Z8K6', reason: 'unknown event kind "whale_alert"' },
        { id: 'evt_01J9Z8K7', reason: 'token.address (or token.assetId) does not form a valid asset id' },
      ],
    });
  });

  it('refuses a body that is not {"events": [...]}', () => {
    for (const body of [null, [], 'events', { events: {} }, { event: [] }]) expect(parseWebhookBody(body)).toHaveProperty('error');
  });

  it('ignores an event without an id or with an overlong one', () => {
    const batch = parseWebhookBody({ events: [{ timestamp: '2026-01-05T12:00:00Z', event: 'trending_token' }, { id: 'x'.repeat(257) }] });
    expect(batch).toMatchObject({ events: [], ignored: [{ id: null, reason: 'id must be a non-empty string' }, { reason: /longer than 256/ }] });
  });
});

describe('webhook signature', () => {
  const secret = 'shh';
  const rawBody = Buffer.from('{"events":[]}');
  const now = Date.parse('2026-01-05T12:00:00Z');
  const sign = (timestamp: string, body = rawBody) =>
    `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
  const at = (offsetSeconds: number) => String(now / 1000 + offsetSeconds);

  it('accepts an HMAC of "<timestamp>.<raw body>" up to 300 s either side of now', () => {
    for (const offset of [0, -300, 300]) {
      expect(verifySignature(secret, { timestamp: at(offset), signature: sign(at(offset)), rawBody }, now)).toEqual({ ok: true });
    }
  });

  it('refuses a skew over 300 s, another body, another timestamp, and malformed headers', () => {
    const refused = (timestamp: string | null, signature: string | null, body = rawBody) =>
      verifySignature(secret, { timestamp, signature, rawBody: body }, now).ok === false;
    expect(refused(at(-301), sign(at(-301)))).toBe(true);
    expect(refused(at(301), sign(at(301)))).toBe(true);
    expect(refused(at(0), sign(at(0)), Buffer.from('{"events":[{}]}'))).toBe(true);
    expect(refused(at(1), sign(at(0)))).toBe(true);
    expect(refused(at(0), sign(at(0)).replace('sha256=', 'sha1='))).toBe(true);
    expect(refused(at(0), sign(at(0)).slice(0, -2))).toBe(true);
    expect(refused(`${at(0)}.5`, sign(`${at(0)}.5`))).toBe(true);
    expect(refused(null, sign(at(0)))).toBe(true);
    expect(refused(at(0), null)).toBe(true);
  });
});
