import { describe, expect, it } from 'vitest';
import { printSortedSchema } from '../../src/schema/print.js';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { wallet, wallets, SEND, sendKit } from '../helpers/alerts-send.js';

const gw = useTestGateway({ resetControls: true, resetAlerts: true });
const { sends, demo, appHeaders, input, send } = sendKit(gw);

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
