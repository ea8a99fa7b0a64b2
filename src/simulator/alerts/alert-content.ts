import type { Rng } from '../prng.js';
import { hexBytes } from './random-text.js';
import type { AlertAction, AlertRecord, AppRecord } from './types.js';

/** Where the simulated apps' icons and the alerts' images live. */
export const CDN = 'https://cdn.alerts-sim.example';

const TOKENS = ['SOL', 'USDC', 'USDT', 'JitoSOL', 'mSOL', 'JUP', 'BONK', 'PYUSD', 'JLP', 'WIF'];

/** A plausible DeFi alert (title, body, sometimes an image, actions and data) for one app and wallet. */
export function alertContent(
  rng: Rng,
  app: AppRecord,
  wallet: string,
): Pick<AlertRecord, 'title' | 'body' | 'image' | 'actions' | 'data'> {
  const token = rng.pick(TOKENS);
  const apy = (rng.int(150, 2500) / 100).toFixed(2);
  const ltv = rng.int(70, 95);
  const templates: (() => { title: string; body: string })[] = [
    () => ({ title: `${token} deposit APY is now ${apy}%`, body: `The ${token} deposit rate on ${app.name} moved to ${apy}% over the last hour.` }),
    () => ({ title: `Health check: LTV at ${ltv}%`, body: `Your ${token} position LTV reached ${ltv}%. Add collateral or repay to avoid liquidation.` }),
    () => ({ title: `Rewards ready to claim`, body: `You have unclaimed ${token} rewards on ${app.name}.` }),
    () => ({ title: `${token} borrow rate spike`, body: `Borrowing ${token} now costs ${apy}% APY. Consider repaying part of your loan.` }),
    () => ({ title: `Position closed`, body: `Your ${token} position was closed at the requested price.` }),
    () => ({ title: `Market settled`, body: `A prediction market you hold was settled. Check your payout.` }),
    () => ({ title: `New vault: ${token}`, body: `A new ${token} strategy launched with ${apy}% estimated APY.` }),
    () => ({ title: `${token} moved ${rng.int(5, 25)}% today`, body: `${token} is trending. Your exposure may have changed.` }),
  ];
  const { title, body } = rng.pick(templates)();
  const out: Pick<AlertRecord, 'title' | 'body' | 'image' | 'actions' | 'data'> = { title, body };
  if (rng.chance(0.25)) out.image = `${CDN}/alerts/${hexBytes(rng, 6)}.${rng.pick(['png', 'jpg', 'webp'])}`;
  if (rng.chance(0.4)) {
    const n = rng.int(1, 3);
    const actions: AlertAction[] = [];
    for (let i = 0; i < n; i++) {
      const action: AlertAction = {
        type: 'link',
        label: rng.pick(['Open app', 'Repay', 'Add collateral', 'Claim', 'View position', 'Withdraw']),
        url: `https://app.${rng.pick(['kamino.finance', 'marginfi.com', 'jup.ag', 'drift.trade'])}/p/${hexBytes(rng, 6)}`,
      };
      if (rng.chance(0.5)) {
        action.context = {
          type: 'position',
          apiUrl: `https://api.alerts-sim.example/v0/positions/owners?walletAddresses=${wallet}`,
        };
        if (rng.chance(0.6)) action.context.action = rng.pick(['deposit', 'withdraw', 'repay', 'claimRewards']);
      }
      actions.push(action);
    }
    out.actions = actions;
  }
  if (rng.chance(0.3)) {
    const data: Record<string, string> = { token, severity: rng.pick(['info', 'warning', 'critical']) };
    if (rng.chance(0.5)) data['market_id'] = `${app.name.split(' ')[0]!.toLowerCase()}.lend.${hexBytes(rng, 8)}`;
    out.data = data;
  }
  return out;
}
