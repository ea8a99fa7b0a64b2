import { badRequest, conflict, ok, unprocessable, type Router, type SimRequest, type SimResponse } from '../router.js';
import { isObject, isUuid, subscribedAppView } from './common.js';
import { TELEGRAM_BOT } from './data.js';
import { EMAIL_CODE_TTL_MS, type AlertsState } from './state.js';
import { subscriberRoute } from './subscriber-route.js';
import type { ChannelRecord, SubscriberRecord } from './types.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** docs/upstream.md sections 1.1 (identity) and 1.2 (channels and push devices). */
export function registerChannelRoutes(router: Router, state: AlertsState): void {
  const sub = subscriberRoute(state);

  // 1.1 Identity
  router.get('/v2/auth', sub((s) => ok({ walletAddress: s.walletAddress })));

  // 1.2 Channels
  router.get('/v2/channels', sub((s) => ok(channelListing(state, s))));

  router.post(
    '/v2/channel/email/prepare',
    sub((s, req) => {
      const email = isObject(req.body) ? req.body['email'] : undefined;
      if (typeof email !== 'string' || email.trim().length > 254 || !EMAIL_RE.test(email.trim())) {
        return badRequest('email must be a valid email address');
      }
      if (s.channels.has('EMAIL')) return conflict('an email channel already exists; delete it first');
      const rec: ChannelRecord = { id: state.newId(), type: 'EMAIL', value: email.trim(), verified: false, subscribed: false };
      s.channels.set('EMAIL', rec);
      s.pendingEmail = { code: state.newCode(), expiresAt: state.now() + EMAIL_CODE_TTL_MS };
      return ok(channelView(state, s, 'EMAIL', rec));
    }),
  );

  router.post(
    '/v2/channel/email/verify',
    sub((s, req) => {
      const code = isObject(req.body) ? req.body['code'] : undefined;
      if (typeof code !== 'string') return badRequest('code must be a string of 6 digits');
      const rec = s.channels.get('EMAIL');
      const pending = s.pendingEmail;
      if (!rec || !pending) return unprocessable('no email verification is pending');
      if (state.now() > pending.expiresAt) return unprocessable('verification code expired; request a new one');
      if (code.trim() !== pending.code) return unprocessable('wrong verification code');
      rec.verified = true;
      rec.subscribed = true;
      delete s.pendingEmail;
      return ok(channelView(state, s, 'EMAIL', rec));
    }),
  );

  router.post(
    '/v2/channel/email/resend',
    sub((s) => {
      const rec = s.channels.get('EMAIL');
      if (!rec) return unprocessable('no email channel to verify');
      if (rec.verified) return conflict('email already verified');
      s.pendingEmail = { code: state.newCode(), expiresAt: state.now() + EMAIL_CODE_TTL_MS };
      return ok({}, 201);
    }),
  );

  router.post(
    '/v2/channel/email/delete',
    sub((s) => {
      s.channels.delete('EMAIL');
      delete s.pendingEmail;
      return ok({}, 201);
    }),
  );

  router.post(
    '/v2/channel/telegram/prepare',
    sub((s) => {
      let rec = s.channels.get('TELEGRAM');
      if (!rec) {
        rec = { id: state.newId(), type: 'TELEGRAM', value: '', verified: false, subscribed: false };
        s.channels.set('TELEGRAM', rec);
      }
      s.telegramLinkCode = state.newHex(8);
      return ok({ ...channelView(state, s, 'TELEGRAM', rec), verification: { link: `${TELEGRAM_BOT}?start=${s.telegramLinkCode}` } });
    }),
  );

  router.post(
    '/v2/channel/telegram/delete',
    sub((s) => {
      s.channels.delete('TELEGRAM');
      delete s.telegramLinkCode;
      return ok({});
    }),
  );

  router.post('/v2/push/subscribe', sub((s, req) => push(state, s, req, true)));
  router.post('/v2/push/unsubscribe', sub((s, req) => push(state, s, req, false)));
}

const LISTING_ORDER = ['EMAIL', 'TELEGRAM'];

function channelListing(state: AlertsState, s: SubscriberRecord): Record<string, unknown> {
  const keys = [...s.channels.keys()].sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, channelView(state, s, k, s.channels.get(k)!)]));
}

function rank(key: string): number {
  const i = LISTING_ORDER.indexOf(key);
  return i < 0 ? LISTING_ORDER.length : i;
}

/**
 * One channel as listed. `subscribedApps` derives from the subscription preferences of the listing key's
 * channel (EMAIL or TELEGRAM), whatever the record's `type`; other keys carry a fixed list.
 */
function channelView(state: AlertsState, s: SubscriberRecord, key: string, rec: ChannelRecord): Record<string, unknown> {
  const appIds =
    rec.staticAppIds ??
    (key === 'EMAIL' || key === 'TELEGRAM'
      ? [...s.apps].filter(([, set]) => set.has(key)).map(([id]) => id)
      : []);
  const apps = appIds.flatMap((id) => {
    const app = state.appById(id);
    return app ? [subscribedAppView(app)] : [];
  });
  const out: Record<string, unknown> = {
    id: rec.id,
    type: rec.type,
    value: rec.value,
    verified: rec.verified,
    subscribed: rec.subscribed,
  };
  if (!(rec.omitSubscribedApps && apps.length === 0)) out['subscribedApps'] = apps;
  return out;
}

function push(state: AlertsState, s: SubscriberRecord, req: SimRequest, subscribe: boolean): SimResponse {
  if (!isObject(req.body)) return badRequest('body must be an object with fcmToken');
  const { fcmToken, deviceId, appId } = req.body;
  if (typeof fcmToken !== 'string' || fcmToken.length === 0 || fcmToken.length > 4096) {
    return badRequest('fcmToken is required (a non-empty string)');
  }
  if (deviceId !== undefined && deviceId !== null && typeof deviceId !== 'string') return badRequest('deviceId must be a string');
  if (appId !== undefined && appId !== null && !isUuid(appId)) return badRequest('appId must be a UUID');
  if (typeof appId === 'string' && !state.appById(appId)) return unprocessable(`unknown app ${appId}`);
  const app = typeof appId === 'string' ? appId : undefined;
  s.push = s.push.filter((p) => !(p.fcmToken === fcmToken && (subscribe ? p.appId === app : app === undefined || p.appId === app)));
  if (subscribe) {
    s.push.push({
      fcmToken,
      ...(typeof deviceId === 'string' ? { deviceId } : {}),
      ...(app ? { appId: app } : {}),
      at: new Date(state.now()).toISOString(),
    });
  }
  return ok({}, 202);
}
