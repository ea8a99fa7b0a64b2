import { expect } from 'vitest';
import type { TestGateway } from './gateway.js';
import { alertsKit } from './alerts-gateway.js';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A distinct, well-formed (44-character base58) wallet address per number. */
export function wallet(n: number): string {
  let out = '';
  do {
    out = BASE58[n % 58] + out;
    n = Math.floor(n / 58);
  } while (n > 0);
  return out.padStart(44, '1');
}
export const wallets = (n: number) => Array.from({ length: n }, (_, i) => wallet(i));

export const SEND_ROUTE = 'POST /v2/:appId/send';

export const SEND = /* GraphQL */ `
  mutation Send($input: SendNotificationInput!) {
    sendNotification(input: $input) { accepted recipientCount userErrors { code message field } }
  }
`;

/** The SendNotification mutation as the demo app sends it, and the send calls it reaches. */
export function sendKit(gw: TestGateway) {
  const { demo } = alertsKit(gw);
  const sends = () => gw.sim.controls.count('alerts', SEND_ROUTE);
  const appHeaders = () => ({ 'x-service-api-key': demo().apiKey });

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

  return { sends, demo, appHeaders, input, send };
}
