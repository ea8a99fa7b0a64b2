import { describe, expect, it, vi } from 'vitest';
import { printSortedSchema } from '../../src/schema/print.js';
import { operation, startTestGateway, useTestGateway } from '../helpers/gateway.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });


const SEND_ROUTE = 'POST /v2/:appId/send';
const sends = () => gw.sim.controls.count('alerts', SEND_ROUTE);
const demo = () => gw.sim.alerts.demo;
const appHeaders = () => ({ 'x-service-api-key': demo().apiKey });

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A distinct, well-formed (44-character base58) wallet address per number. */
function wallet(n: number): string {
  let out = '';
  do {
    out = BASE58[n % 58] + out;
    n = Math.floor(n / 58);
  } while (n > 0);
  return out.padStart(44, '1');
}
const wallets = (n: number) => Array.from({ length: n }, (_, i) => wallet(i));

const SEND = /* GraphQL */ `
  mutation Send($input: SendNotificationInput!) {
    sendNotification(input: $input) { accepted recipientCount userErrors { code message field } }
  }
`;

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    appId: demo().appId,
    channels: ['IN_APP'],
    title: 'Rate change',
    body: 'USDC deposit APY moved to 7.1 %.',
    recipient: { walletAddress: demo().walletAddress },
    ...overrides,
  };
}

async function send(variables: Record<string, unknown>, headers: Record<string, string> = appHeaders()) {
  const res = await gw.execute(SEND, { input: variables }, headers);
  expect(res.errors).toBeUndefined();
  return res.data!['sendNotification'] as {
    accepted: boolean | null;
    recipientCount: number | null;
    userErrors: { code: string; message: string; field: string[] | null }[];
  };
}

describe('the SendNotification operation, unchanged', () => {
  it('sends to a list of wallets once and counts distinct recipients', async () => {
    const list = [demo().walletAddress, wallet(1), wallet(2), wallet(1)];
    const res = await gw.execute(operation('SendNotification'), { appId: demo().appId, wallets: list, key: null }, appHeaders());
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({ sendNotification: { accepted: true, recipientCount: 3, userErrors: [] } });
    expect(sends()).toBe(1);
    expect(gw.sim.alerts.deliveries).toEqual([
      expect.objectContaining({ appId: demo().appId, recipientType: 'subscribers', recipients: 3, channels: ['IN_APP', 'PUSH'] }),
    ]);
    const inbox = gw.sim.alerts.subscribers.get(demo().walletAddress)!.inbox;
    expect(inbox.at(-1)).toMatchObject({
      title: 'Your position is near liquidation',
      data: { kind: 'liquidation-warning', positionId: 'demo-1' },
      actions: [{ type: 'link', label: 'Repay', url: 'https://example.com/repay' }],
    });
  });
});

describe('recipients', () => {
  it('is a @oneOf input in the schema', () => {
    expect(printSortedSchema()).toMatch(/input NotificationRecipient @oneOf \{/);
  });

  it.each([
    ['two fields', { walletAddress: wallet(1), allSubscribers: true }],
    ['no field', {}],
    ['a null field', { walletAddress: null }],
  ])('refuses %s (exactly one is allowed) before anything runs', async (_name, recipient) => {
    const res = await gw.execute(SEND, { input: input({ recipient }) }, appHeaders());
    expect(res.data ?? null).toBeNull();
    expect(res.errors?.[0]?.message).toMatch(/exactly one key|must be non-null/i);
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('sends one wallet, and all subscribers (whose count only the service knows)', async () => {
    expect(await send(input())).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
    expect(await send(input({ recipient: { allSubscribers: true } }))).toEqual({ accepted: true, recipientCount: null, userErrors: [] });
    expect(gw.sim.alerts.deliveries.map((d) => d.recipientType)).toEqual(['subscriber', 'all-subscribers']);
    expect(sends()).toBe(2);
  });

  it('sends 10,000 distinct wallets in one call', async () => {
    const list = wallets(10_000);
    expect(await send(input({ recipient: { walletAddresses: [...list, ...list.slice(0, 50)] } }))).toEqual({
      accepted: true,
      recipientCount: 10_000,
      userErrors: [],
    });
    expect(sends()).toBe(1);
    expect(gw.sim.alerts.deliveries).toEqual([expect.objectContaining({ recipientType: 'subscribers', recipients: 10_000 })]);
  });

  it('refuses 10,001 distinct wallets as TOO_MANY_RECIPIENTS, with no call', async () => {
    const result = await send(input({ recipient: { walletAddresses: wallets(10_001) } }));
    expect(result).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'TOO_MANY_RECIPIENTS', message: expect.stringContaining('10,000'), field: ['recipient', 'walletAddresses'] }],
    });
    expect(sends()).toBe(0);
  });
});

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

describe('the app key', () => {
  it('is required: without X-Service-Api-Key the answer is UNAUTHENTICATED and nothing is sent', async () => {
    const res = await gw.execute(SEND, { input: input() }, gw.viewerHeaders);
    expect(res.data).toEqual({ sendNotification: null });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(gw.sim.controls.count('alerts')).toBe(0);
  });

  it('a key the service refuses (401) is UNAUTHENTICATED', async () => {
    const res = await gw.execute(SEND, { input: input() }, { 'x-service-api-key': 'sak_unknown' });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED' });
    expect(sends()).toBe(1);
  });

  it("another app's id (403) is APP_NOT_OWNED", async () => {
    const other = gw.sim.alerts.apps.find((a) => a.id !== demo().appId)!;
    expect(await send(input({ appId: other.id }))).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'APP_NOT_OWNED', message: expect.any(String), field: ['appId'] }],
    });
  });

  it('reaches the send call and no other call; the subscriber credentials never reach it', async () => {
    const res = await gw.execute(
      `mutation($input: SendNotificationInput!) {
        markNotificationsRead(input: {}) { unreadCount viewer { walletAddress apps { appId } } }
        sendNotification(input: $input) { accepted }
      }`,
      { input: input() },
      { ...gw.viewerHeaders, ...appHeaders() },
    );
    expect(res.errors).toBeUndefined();
    const log = gw.sim.controls.headerLog();
    expect(log.length).toBeGreaterThan(3);
    const withKey = log.filter((e) => e.headers['x-service-api-key'] !== undefined);
    expect(withKey.map((e) => `${e.service} ${e.route}`)).toEqual([`alerts ${SEND_ROUTE}`]);
    expect(withKey[0]!.headers['x-service-api-key']).toBe(demo().apiKey);
    expect(withKey[0]!.headers['authorization']).toBeUndefined();
    expect(withKey[0]!.headers['x-service-client-key']).toBeUndefined();
  });

  it('failures of the service are UPSTREAM_UNAVAILABLE', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, { status: 502 });
    const res = await gw.execute(SEND, { input: input() }, appHeaders());
    expect(res.data).toEqual({ sendNotification: null });
    expect(res.errors?.[0]?.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'alerts', retryable: true });
  });
});

describe('idempotency', () => {
  it('answers a repeat of the same key and input with the first result, without a second call', async () => {
    const first = await send(input({ idempotencyKey: 'order-1', recipient: { walletAddresses: [wallet(1), wallet(2)] } }));
    const again = await send(input({ idempotencyKey: 'order-1', recipient: { walletAddresses: [wallet(1), wallet(2)] } }));
    expect(first).toEqual({ accepted: true, recipientCount: 2, userErrors: [] });
    expect(again).toEqual(first);
    expect(sends()).toBe(1);
    expect(gw.sim.alerts.deliveries).toHaveLength(1);
    expect(gw.sim.controls.headerLog({ route: SEND_ROUTE })[0]!.headers['idempotency-key']).toBe('order-1');
  });

  it('treats data in another key order as the same input', async () => {
    await send(input({ idempotencyKey: 'k', data: { a: '1', b: '2' } }));
    expect(await send(input({ idempotencyKey: 'k', data: { b: '2', a: '1' } }))).toMatchObject({ accepted: true });
    expect(sends()).toBe(1);
  });

  it('refuses the same key with another input as IDEMPOTENCY_KEY_REUSED, with no call', async () => {
    await send(input({ idempotencyKey: 'order-2' }));
    expect(await send(input({ idempotencyKey: 'order-2', title: 'Something else' }))).toEqual({
      accepted: false,
      recipientCount: null,
      userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String), field: ['idempotencyKey'] }],
    });
    expect(sends()).toBe(1);
  });

  it('keeps keys per API key: the same key from another app is its own send', async () => {
    const other = gw.sim.alerts.apps[1]!;
    await send(input({ idempotencyKey: 'shared' }));
    expect(await send(input({ idempotencyKey: 'shared', appId: other.id }), { 'x-service-api-key': other.apiKey })).toMatchObject({
      accepted: true,
    });
    expect(sends()).toBe(2);
    expect(gw.sim.alerts.deliveries.map((d) => d.appId)).toEqual([demo().appId, other.id]);
  });

  it('sends without a key every time', async () => {
    await send(input());
    await send(input());
    expect(sends()).toBe(2);
  });

  it('forgets a key whose send failed, so a retry goes through', async () => {
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, { status: 503 });
    const failed = await gw.execute(SEND, { input: input({ idempotencyKey: 'retry-me' }) }, appHeaders());
    expect(failed.errors?.[0]?.extensions?.['code']).toBe('UPSTREAM_UNAVAILABLE');
    gw.sim.controls.setFault({ service: 'alerts', route: SEND_ROUTE }, null);
    expect(await send(input({ idempotencyKey: 'retry-me' }))).toMatchObject({ accepted: true });
    expect(sends()).toBe(2);
    expect(gw.sim.alerts.deliveries).toHaveLength(1);
  });

  it("relies on the service's own memory when the gateway has none (another replica, a restart)", async () => {
    const replica = await startTestGateway({ sim: gw.sim });
    try {
      await send(input({ idempotencyKey: 'order-3' }));

      const changed = await replica.execute(SEND, { input: input({ idempotencyKey: 'order-3', body: 'Changed' }) }, appHeaders());
      expect(changed.data!['sendNotification']).toEqual({
        accepted: false,
        recipientCount: null,
        userErrors: [{ code: 'IDEMPOTENCY_KEY_REUSED', message: expect.any(String), field: ['idempotencyKey'] }],
      });
      expect(sends()).toBe(2);

      const repeat = await replica.execute(SEND, { input: input({ idempotencyKey: 'order-3' }) }, appHeaders());
      expect(repeat.data!['sendNotification']).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
      expect(sends()).toBe(3);
      expect(gw.sim.alerts.deliveries).toHaveLength(1);
    } finally {
      await replica.close();
    }
  });
});
