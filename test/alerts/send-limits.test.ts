import { describe, expect, it, vi } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { wallet, sendKit } from '../helpers/alerts-send.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { sends, input, send } = sendKit(gw);

describe('limits of the contract, checked before any call', () => {
  const at = (n: number, unit = 'a') => unit.repeat(n);
  const url = (length: number, ext = '.png') => {
    const head = 'https://cdn.example.com/';
    return head + 'i'.repeat(length - head.length - ext.length) + ext;
  };

  it('accepts every limit at its maximum', async () => {
    const result = await send(
      input({
        channels: ['PUSH', 'IN_APP', 'EMAIL', 'TELEGRAM'],
        title: at(60, '✓'),
        body: at(500),
        image: url(300, '.webp'),
        actions: [1, 2, 3].map(() => ({ label: at(30), url: url(300, '') })),
        data: { [at(64, 'k')]: at(500), 'a_b-C9': 'x' },
        idempotencyKey: at(255, 'K'),
        push: { showNotification: true, playNotificationSound: false },
      }),
    );
    expect(result).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
    expect(sends()).toBe(1);
  });

  const over: [string, Record<string, unknown>, string[]][] = [
    ['appId not a UUID', { appId: 'kamino' }, ['appId']],
    ['no channel', { channels: [] }, ['channels']],
    ['an empty title', { title: '' }, ['title']],
    ['a title of 61 characters', { title: at(61) }, ['title']],
    ['an empty body', { body: '' }, ['body']],
    ['a body of 501 characters', { body: at(501) }, ['body']],
    ['an image URL of 301 characters', { image: url(301) }, ['image']],
    ['an image that is no jpg, png or webp', { image: 'https://cdn.example.com/a.gif' }, ['image']],
    ['an image that is not http(s)', { image: 'ftp://cdn.example.com/a.png' }, ['image']],
    ['four actions', { actions: [1, 2, 3, 4].map(() => ({ label: 'Go', url: 'https://example.com' })) }, ['actions']],
    ['an empty label', { actions: [{ label: '', url: 'https://example.com' }] }, ['actions', '0', 'label']],
    ['a label of 31 characters', { actions: [{ label: at(31), url: 'https://example.com' }] }, ['actions', '0', 'label']],
    ['an action URL that is not http(s)', { actions: [{ label: 'Go', url: 'javascript:alert(1)' }] }, ['actions', '0', 'url']],
    ['an action URL of 301 characters', { actions: [{ label: 'Go', url: url(301, '') }] }, ['actions', '0', 'url']],
    ['data that is a list', { data: ['a'] }, ['data']],
    ['data that is a string', { data: 'a' }, ['data']],
    ['a data key of 65 characters', { data: { [at(65, 'k')]: 'v' } }, ['data', at(65, 'k')]],
    ['a data key with a dot', { data: { 'a.b': 'v' } }, ['data', 'a.b']],
    ['a data value that is a number', { data: { n: 1 } }, ['data', 'n']],
    ['an empty data value', { data: { n: '' } }, ['data', 'n']],
    ['a data value of 501 characters', { data: { n: at(501) } }, ['data', 'n']],
    ['an idempotency key of 256 characters', { idempotencyKey: at(256, 'K') }, ['idempotencyKey']],
    ['an idempotency key with a newline', { idempotencyKey: 'a\nb' }, ['idempotencyKey']],
    ['an empty idempotency key', { idempotencyKey: '' }, ['idempotencyKey']],
    ['a malformed wallet', { recipient: { walletAddress: '0xabc' } }, ['recipient', 'walletAddress']],
    ['a malformed wallet in a list', { recipient: { walletAddresses: [wallet(1), 'O0Il'] } }, ['recipient', 'walletAddresses', '1']],
    ['an empty wallet list', { recipient: { walletAddresses: [] } }, ['recipient', 'walletAddresses']],
    ['allSubscribers: false', { recipient: { allSubscribers: false } }, ['recipient', 'allSubscribers']],
  ];

  it.each(over)('refuses %s as INVALID_INPUT naming the field, with no call', async (_name, overrides, field) => {
    const result = await send(input(overrides));
    expect(result).toEqual({ accepted: false, recipientCount: null, userErrors: [{ code: 'INVALID_INPUT', message: expect.any(String), field }] });
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('lists every problem at once (at most 20)', async () => {
    const result = await send(input({ title: '', body: '', recipient: { walletAddresses: Array.from({ length: 100 }, (_, i) => `bad${i}`) } }));
    expect(result.userErrors).toHaveLength(20);
    expect(result.userErrors.slice(0, 3).map((e) => e.field)).toEqual([['title'], ['body'], ['recipient', 'walletAddresses', '0']]);
  });

  it("passes on the service's own refusal field by field (an unknown topic), in the gateway's words", async () => {
    const result = await send(input({ topicId: 'no-such-topic' }));
    expect(result).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'INVALID_INPUT', message: 'The alerts service refused topicId.', field: ['topicId'] }],
    });
    expect(sends()).toBe(1);
  });

  it('keeps a __proto__ data key (valid by the contract) instead of dropping it silently', async () => {
    const data = JSON.parse('{"__proto__":"x","a":"1"}') as Record<string, string>;
    const spy = vi.spyOn(gw.services.upstream.alerts, 'send');
    try {
      const result = await send(input({ data }));
      expect(result.userErrors).toEqual([]);
      expect(sends()).toBe(1);
      const sent = spy.mock.calls[0]![2];
      expect(JSON.parse(JSON.stringify(sent.data))).toEqual(JSON.parse('{"__proto__":"x","a":"1"}'));
      expect(Object.keys(sent.data!)).toEqual(['__proto__', 'a']);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a data object of more than 100 keys before any call', async () => {
    const data = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v']));
    const result = await send(input({ data }));
    expect(result.userErrors).toEqual([{ code: 'INVALID_INPUT', message: 'data holds at most 100 keys; got 101.', field: ['data'] }]);
    expect(sends()).toBe(0);
  });
});
