import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { acceptedRequestId } from '../../src/request-id.js';

describe('X-Request-Id', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  const ask = (headers: Record<string, string> = {}) =>
    gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query: '{ __typename }' }),
    });

  it("echoes the caller's id", async () => {
    const response = await ask({ 'x-request-id': 'checkout-7f3a.2' });
    expect(response.headers.get('x-request-id')).toBe('checkout-7f3a.2');
  });

  it('generates one when the caller sends none, a new one each time', async () => {
    const [a, b] = await Promise.all([ask(), ask()]);
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  it('replaces an id that is too long or not printable', async () => {
    for (const sent of ['x'.repeat(129), 'a b', 'id\u00e9']) {
      const id = (await ask({ 'x-request-id': sent })).headers.get('x-request-id');
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('is on every answer, health and errors included', async () => {
    const health = await gw.app.yoga.fetch('http://gateway.test/health', { headers: { 'x-request-id': 'probe-1' } });
    expect(health.headers.get('x-request-id')).toBe('probe-1');
    const bad = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'bad-1' },
      body: '{',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-request-id')).toBe('bad-1');
  });

  it('generates UUID-shaped ids that count up, distinct across the counter\'s carries', () => {
    const ids = Array.from({ length: 1_000 }, () => acceptedRequestId(null));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const counted = ids.map((id) => parseInt(id.slice(24), 16));
    for (let i = 1; i < counted.length; i++) expect(counted[i]).toBe((counted[i - 1]! + 1) % 16 ** 12);
  });
});
