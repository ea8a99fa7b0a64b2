import { Rng } from '../prng.js';
import { alertContent, CDN } from './alert-content.js';
import { base58Address, hexBytes, sixDigitCode } from './random-text.js';
import type {
  AlertRecord,
  AppRecord,
  ChannelName,
  ChannelRecord,
  DemoCredentials,
  SubscriberRecord,
  TopicRecord,
} from './types.js';

/** Everything `reset()` rebuilds. */
export interface AlertsData {
  apps: AppRecord[];
  subscribers: Map<string, SubscriberRecord>;
  clientKeys: string[];
  demo: DemoCredentials;
}

export const DEMO_CLIENT_KEY = 'demo-client-key';
export const SUBSCRIBER_COUNT = 60;
const MIN_SUBSCRIBERS = 50;
const DAY = 86_400_000;
export const TELEGRAM_BOT = 'https://t.me/AlertsSimBot';

const APP_DEFS: { name: string; slug: string; description?: string; icon: boolean; topics: boolean }[] = [
  { name: 'Kamino Alerts', slug: 'kamino', description: 'Lending, liquidity and rate alerts from Kamino.', icon: true, topics: true },
  { name: 'marginfi', slug: 'marginfi', description: 'Health factor and rate notifications.', icon: true, topics: true },
  { name: 'Jupiter', slug: 'jupiter', description: 'Swaps, limit orders and perps updates.', icon: true, topics: true },
  { name: 'Drift Protocol', slug: 'drift', description: 'Perpetuals funding and liquidation warnings.', icon: true, topics: true },
  { name: 'Lulo', slug: 'lulo', description: 'Best-rate lending moves.', icon: true, topics: true },
  { name: 'DFlow Predictions', slug: 'dflow', description: 'Prediction market openings and settlements.', icon: false, topics: true },
  { name: 'Carrot', slug: 'carrot', description: 'Yield vault notices.', icon: true, topics: false },
  { name: 'DefiTuna', slug: 'defituna', icon: true, topics: true },
];

const TOPIC_POOL: { name: string; slug: string; description?: string }[] = [
  { name: 'Rate changes', slug: 'rate-changes', description: 'Deposit and borrow APY moves.' },
  { name: 'Liquidation warnings', slug: 'liquidation-warnings', description: 'Positions nearing liquidation.' },
  { name: 'Rewards', slug: 'rewards', description: 'Claimable rewards and campaigns.' },
  { name: 'Product news', slug: 'product-news' },
  { name: 'Position updates', slug: 'position-updates', description: 'Opens, closes and fills.' },
  { name: 'Market resolution', slug: 'market-resolution', description: 'Prediction markets settling.' },
  { name: 'Price moves', slug: 'price-moves' },
];

/**
 * The alerts data's own random stream. Its seeding (the salt mixed with 0x9e3779b9) keeps the data
 * generated before the simulator shared one PRNG, so tokens, keys and ids stay the same.
 */
export function alertsRng(salt: number): Rng {
  return new Rng(salt ^ 0x9e3779b9);
}

function b64url(input: string | Uint8Array): string {
  return Buffer.from(input).toString('base64url');
}

function makeToken(rng: Rng, wallet: string, issuedAtSec: number): string {
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const payload = b64url(
    JSON.stringify({ sub: wallet, iss: 'alerts-sim', iat: issuedAtSec, exp: issuedAtSec + 365 * 86_400, jti: hexBytes(rng, 8) }),
  );
  return `${header}.${payload}.${b64url(rng.bytes(32))}`;
}

function makeApps(rng: Rng): AppRecord[] {
  return APP_DEFS.map((def) => {
    const app: AppRecord = {
      id: rng.uuid(),
      name: def.name,
      icon: def.icon ? `${CDN}/apps/${def.slug}.png` : null,
      apiKey: `sak_${def.slug}_${hexBytes(rng, 16)}`,
    };
    if (def.description) app.description = def.description;
    if (def.topics) {
      app.topics = rng.sample(TOPIC_POOL, rng.int(2, 4)).map((t): TopicRecord => {
        const topic: TopicRecord = { id: rng.uuid(), name: t.name, slug: t.slug };
        if (t.description) topic.description = t.description;
        return topic;
      });
    }
    return app;
  });
}

function channel(rng: Rng, type: string, value: string, verified: boolean, subscribed: boolean): ChannelRecord {
  return { id: rng.uuid(), type, value, verified, subscribed };
}

function makeSubscriber(
  rng: Rng,
  index: number,
  wallet: string,
  apps: AppRecord[],
  anchorMs: number,
): SubscriberRecord {
  const isDemo = index === 0;
  const sub: SubscriberRecord = {
    walletAddress: wallet,
    token: makeToken(rng, wallet, Math.floor(anchorMs / 1000) - rng.int(1, 200) * 86_400),
    channels: new Map(),
    apps: new Map(),
    topics: new Set(),
    inbox: [],
    lastRead: new Map(),
    push: [],
  };

  // App subscriptions.
  const noEmailPrefs = index % 5 === 2; // these subscribers have an email channel but no app on EMAIL
  const chosen = isDemo ? apps.slice(0, 4) : rng.sample(apps, index % 13 === 7 ? 0 : rng.int(1, 5));
  for (const app of chosen) {
    const set = new Set<ChannelName>();
    if (isDemo) {
      set.add('IN_APP');
      if (app === apps[0] || app === apps[1]) set.add('EMAIL');
      if (app === apps[0] || app === apps[2]) set.add('TELEGRAM');
    } else {
      if (rng.chance(0.85)) set.add('IN_APP');
      if (!noEmailPrefs && rng.chance(0.5)) set.add('EMAIL');
      if (rng.chance(0.35)) set.add('TELEGRAM');
      if (set.size === 0) set.add('IN_APP');
    }
    sub.apps.set(app.id, set);
    for (const topic of app.topics ?? []) if (isDemo ? topic === app.topics?.[0] : rng.chance(0.5)) sub.topics.add(topic.id);
  }

  // Channels: EMAIL, TELEGRAM (possibly the published quirk: a record of type EMAIL under TELEGRAM), unknown types.
  const email = isDemo ? 'demo@alerts-sim.example' : `holder${index}.${hexBytes(rng, 2)}@example.com`;
  if (isDemo || noEmailPrefs || rng.chance(0.55)) {
    const verified = isDemo || rng.chance(0.85);
    const rec = channel(rng, 'EMAIL', email, verified, verified && rng.chance(0.9));
    if (noEmailPrefs) rec.omitSubscribedApps = true;
    else if (rng.chance(0.3)) rec.omitSubscribedApps = true;
    sub.channels.set('EMAIL', rec);
    if (!verified) sub.pendingEmail = { code: sixDigitCode(rng), expiresAt: anchorMs - rng.int(1, 10) * DAY };
  }
  const quirk = isDemo || index % 10 === 3;
  if (quirk) {
    sub.channels.set('TELEGRAM', channel(rng, 'EMAIL', email, true, true));
  } else if (rng.chance(0.4)) {
    const verified = rng.chance(0.8);
    const rec = channel(rng, 'TELEGRAM', verified ? `@tg_holder_${index}` : '', verified, verified);
    if (rng.chance(0.3)) rec.omitSubscribedApps = true;
    sub.channels.set('TELEGRAM', rec);
  }
  if (index === 1 || index % 17 === 5) {
    const rec = channel(rng, 'DISCORD', `holder${index}#${rng.int(1000, 9999)}`, true, true);
    rec.staticAppIds = chosen.slice(0, 1).map((a) => a.id);
    sub.channels.set('DISCORD', rec);
  }

  // Inbox: alerts from the apps the subscriber receives in-app (else any subscribed app).
  const inboxApps = chosen.filter((a) => sub.apps.get(a.id)?.has('IN_APP'));
  const sources = inboxApps.length > 0 ? inboxApps : chosen;
  let count = 0;
  if (sources.length > 0) {
    if (isDemo) count = 64;
    else if (rng.chance(0.2)) count = rng.int(46, 72);
    else count = rng.int(0, 30);
  }
  const span = 42 * DAY;
  for (let i = 0; i < count; i++) {
    const app = rng.pick(sources);
    // Whole seconds, some sharing a timestamp so the ordering tie-break matters.
    const at = anchorMs - Math.floor((rng.next() * span) / 1000) * 1000;
    const alert: AlertRecord = {
      id: rng.uuid(),
      appId: app.id,
      timestamp: new Date(at).toISOString(),
      ...alertContent(rng, app, wallet),
      read: false,
    };
    if (app.topics && app.topics.length > 0 && rng.chance(0.7)) alert.topicId = rng.pick(app.topics).id;
    sub.inbox.push(alert);
    if (i > 0 && i % 9 === 0) {
      // A burst: another alert at the same instant.
      sub.inbox.push({ id: rng.uuid(), appId: app.id, timestamp: alert.timestamp, ...alertContent(rng, app, wallet), read: false });
      i++;
    }
  }
  // Older alerts are more likely read; record lastRead per app as the newest read alert.
  const cutoff = anchorMs - rng.int(2, 10) * DAY;
  for (const alert of sub.inbox) {
    const old = Date.parse(alert.timestamp) < cutoff;
    alert.read = old ? rng.chance(0.85) : rng.chance(0.15);
    if (alert.read) {
      const prev = sub.lastRead.get(alert.appId);
      if (!prev || prev < alert.timestamp) sub.lastRead.set(alert.appId, alert.timestamp);
    }
  }
  return sub;
}

/** Builds the whole alerts world from a seed. `anchorMs` is "now" for the generated history. */
export function generateAlertsData(seed: number, walletAddresses: readonly string[], anchorMs: number, count = SUBSCRIBER_COUNT): AlertsData {
  const rng = alertsRng(seed ^ 0x0a1e7);
  const apps = makeApps(rng);
  const clientKeys = [DEMO_CLIENT_KEY, `sck_${hexBytes(rng, 12)}`, `sck_${hexBytes(rng, 12)}`];

  const wallets = [...new Set(walletAddresses)];
  while (wallets.length < Math.max(MIN_SUBSCRIBERS, count)) wallets.push(base58Address(rng));
  const chosen = wallets.slice(0, Math.max(MIN_SUBSCRIBERS, Math.min(count, wallets.length)));

  const subscribers = new Map<string, SubscriberRecord>();
  chosen.forEach((wallet, i) => subscribers.set(wallet, makeSubscriber(rng, i, wallet, apps, anchorMs)));

  const demoSub = subscribers.get(chosen[0]!)!;
  const demoApp = apps[0]!;
  return {
    apps,
    subscribers,
    clientKeys,
    demo: {
      token: demoSub.token,
      clientKey: DEMO_CLIENT_KEY,
      walletAddress: demoSub.walletAddress,
      apiKey: demoApp.apiKey,
      appId: demoApp.id,
    },
  };
}
