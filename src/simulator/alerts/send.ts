import { badRequest, forbidden, header, ok, unauthorized, unprocessable, type Router, type SimRequest, type SimResponse } from '../router.js';
import { intParam } from '../world/query.js';
import { charLength, isHttpUrl, isObject, stableStringify } from './common.js';
import type { AlertsState } from './state.js';
import { SEND_CHANNELS, type AlertAction, type AppRecord, type DeliveryRecord, type SendChannel } from './types.js';

export const MAX_RECIPIENTS = 10_000;
const DATA_KEY_RE = /^[A-Za-z0-9_-]{1,64}$/;
const IMAGE_EXT_RE = /\.(jpg|png|webp)$/i;
const MAX_ISSUES = 20;

export interface SendIssue {
  path: string;
  message: string;
}

export interface ValidSend {
  channels: SendChannel[];
  message: { title: string; body: string; image?: string; actions?: AlertAction[] };
  topicId?: string;
  data?: Record<string, string>;
  recipient:
    | { type: 'subscriber'; walletAddress: string }
    | { type: 'subscribers'; walletAddresses: string[] }
    | { type: 'all-subscribers' };
}

const absent = (v: unknown): boolean => v === undefined || v === null;

/** Checks every rule of SendBody (docs/upstream.md 1.5). Unknown extra fields are ignored. */
export function validateSendBody(body: unknown, app: AppRecord): { ok: true; value: ValidSend } | { ok: false; issues: SendIssue[] } {
  const issues: SendIssue[] = [];
  const fail = (path: string, message: string): void => {
    if (issues.length < MAX_ISSUES) issues.push({ path, message });
  };
  if (!isObject(body)) return { ok: false, issues: [{ path: '', message: 'body must be a JSON object' }] };

  // channels
  const channels = body['channels'];
  if (!Array.isArray(channels) || channels.length === 0) fail('channels', 'must be a non-empty list of PUSH, IN_APP, EMAIL, TELEGRAM');
  else {
    channels.forEach((c, i) => {
      if (!SEND_CHANNELS.includes(c as SendChannel)) fail(`channels[${i}]`, 'must be one of PUSH, IN_APP, EMAIL, TELEGRAM');
    });
    if (new Set(channels).size !== channels.length) fail('channels', 'must not repeat a channel');
  }

  // message
  const message = body['message'];
  if (!isObject(message)) fail('message', 'must be an object with title and body');
  else {
    const { title, body: text, image, actions } = message;
    if (typeof title !== 'string' || charLength(title) < 1 || charLength(title) > 60) fail('message.title', 'must be a string of 1–60 characters');
    if (typeof text !== 'string' || charLength(text) < 1 || charLength(text) > 500) fail('message.body', 'must be a string of 1–500 characters');
    if (!absent(image)) {
      if (typeof image !== 'string' || charLength(image) > 300 || !isHttpUrl(image) || !IMAGE_EXT_RE.test(new URL(image).pathname)) {
        fail('message.image', 'must be an http(s) URL of at most 300 characters ending in .jpg, .png or .webp');
      }
    }
    if (!absent(actions)) {
      if (!Array.isArray(actions)) fail('message.actions', 'must be a list');
      else {
        if (actions.length > 3) fail('message.actions', 'at most 3 actions');
        actions.forEach((a, i) => {
          const p = `message.actions[${i}]`;
          if (!isObject(a)) return fail(p, 'must be an object');
          if (a['type'] !== 'link') fail(`${p}.type`, 'must be "link"');
          const label = a['label'];
          if (typeof label !== 'string' || charLength(label) < 1 || charLength(label) > 30) fail(`${p}.label`, 'must be a string of 1–30 characters');
          const url = a['url'];
          if (typeof url !== 'string' || charLength(url) > 300 || !isHttpUrl(url)) fail(`${p}.url`, 'must be an http(s) URL of at most 300 characters');
        });
      }
    }
  }

  // topicId
  const topicId = body['topicId'];
  if (!absent(topicId)) {
    if (typeof topicId !== 'string') fail('topicId', 'must be a string or null');
    else if (!app.topics?.some((t) => t.id === topicId)) fail('topicId', 'is not a topic of this app');
  }

  // data
  const data = body['data'];
  if (!absent(data)) {
    if (!isObject(data)) fail('data', 'must be an object of string values');
    else {
      for (const [k, v] of Object.entries(data)) {
        if (!DATA_KEY_RE.test(k)) fail(`data.${k}`, 'key must match ^[A-Za-z0-9_-]{1,64}$');
        if (typeof v !== 'string' || charLength(v) < 1 || charLength(v) > 500) fail(`data.${k}`, 'value must be a string of 1–500 characters');
      }
    }
  }

  // push
  const pushOpts = body['push'];
  if (!absent(pushOpts)) {
    if (!isObject(pushOpts)) fail('push', 'must be an object');
    else {
      for (const k of ['showNotification', 'playNotificationSound']) {
        if (!absent(pushOpts[k]) && typeof pushOpts[k] !== 'boolean') fail(`push.${k}`, 'must be a boolean');
      }
    }
  }

  // recipient
  const recipient = body['recipient'];
  if (!isObject(recipient)) fail('recipient', 'must be an object with a type');
  else {
    const type = recipient['type'];
    if (type === 'subscriber') {
      const w = recipient['walletAddress'];
      if (typeof w !== 'string' || w.length === 0 || w.length > 128) fail('recipient.walletAddress', 'must be a wallet address');
    } else if (type === 'subscribers') {
      const list = recipient['walletAddresses'];
      if (!Array.isArray(list) || list.length < 1 || list.length > MAX_RECIPIENTS) {
        fail('recipient.walletAddresses', `must be a list of 1–${MAX_RECIPIENTS} wallet addresses`);
      } else {
        const bad = list.findIndex((w) => typeof w !== 'string' || w.length === 0 || w.length > 128);
        if (bad >= 0) fail(`recipient.walletAddresses[${bad}]`, 'must be a wallet address');
      }
    } else if (type !== 'all-subscribers') {
      fail('recipient.type', 'must be one of subscriber, subscribers, all-subscribers');
    }
  }

  if (issues.length > 0) return { ok: false, issues };
  const msg = message as Record<string, unknown>;
  const value: ValidSend = {
    channels: channels as SendChannel[],
    message: { title: msg['title'] as string, body: msg['body'] as string },
    recipient: recipient as ValidSend['recipient'],
  };
  if (typeof msg['image'] === 'string') value.message.image = msg['image'];
  if (Array.isArray(msg['actions'])) {
    value.message.actions = (msg['actions'] as Record<string, string>[]).map((a) => ({
      type: 'link',
      label: a['label']!,
      url: a['url']!,
    }));
  }
  if (typeof topicId === 'string') value.topicId = topicId;
  if (isObject(data)) value.data = { ...(data as Record<string, string>) };
  return { ok: true, value };
}

/** Registers `POST /v2/:appId/send` and `GET /v2/:appId/subscribers` (application calls, `X-Service-Api-Key`). */
export function registerSendRoutes(router: Router, state: AlertsState): void {
  router.post('/v2/:appId/send', (req) => {
    const auth = authorizeApp(state, req);
    if ('status' in auth) return auth;
    const app = auth.app;

    const checked = validateSendBody(req.body, app);
    if (!checked.ok) return badRequest({ message: 'invalid send body', issues: checked.issues });

    const idempotencyKey = header(req, 'idempotency-key');
    const fingerprint = stableStringify(req.body);
    if (idempotencyKey !== undefined) {
      if (idempotencyKey.length === 0 || idempotencyKey.length > 255) return badRequest('Idempotency-Key must be 1–255 characters');
      const seen = state.checkIdempotency(app.id, idempotencyKey, fingerprint);
      if (seen === 'replay') return ok({}, 202);
      if (seen === 'conflict') return unprocessable('Idempotency-Key was already used with a different body');
    }

    deliver(state, app, checked.value, idempotencyKey);
    if (idempotencyKey !== undefined) state.rememberIdempotency(app.id, idempotencyKey, fingerprint);
    return ok({}, 202);
  });

  router.get('/v2/:appId/subscribers', (req) => {
    const auth = authorizeApp(state, req);
    if ('status' in auth) return auth;
    const offset = intParam(req.query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = intParam(req.query, 'limit', 1, 1000, 100);
    const all = appSubscribers(state, auth.app.id);
    return ok({
      subscribers: all.slice(offset, offset + limit).map((walletAddress) => ({ walletAddress })),
      offset,
      limit,
      count: all.length,
    });
  });
}

function authorizeApp(state: AlertsState, req: SimRequest): { app: AppRecord } | SimResponse {
  const key = header(req, 'x-service-api-key');
  const app = key ? state.appByApiKey(key) : undefined;
  if (!app) return unauthorized();
  if (app.id !== req.params['appId']) return forbidden();
  return { app };
}

/** Wallets subscribed to the app on at least one channel, in subscriber order. */
function appSubscribers(state: AlertsState, appId: string): string[] {
  const out: string[] = [];
  for (const s of state.subscribers.values()) if ((s.apps.get(appId)?.size ?? 0) > 0) out.push(s.walletAddress);
  return out;
}

function deliver(state: AlertsState, app: AppRecord, send: ValidSend, idempotencyKey: string | undefined): void {
  let wallets: string[];
  if (send.recipient.type === 'subscriber') wallets = [send.recipient.walletAddress];
  else if (send.recipient.type === 'subscribers') wallets = [...new Set(send.recipient.walletAddresses)];
  else wallets = appSubscribers(state, app.id);

  const at = new Date(state.now()).toISOString();
  let inboxed = 0;
  if (send.channels.includes('IN_APP')) {
    for (const w of wallets) {
      const s = state.subscribers.get(w);
      if (!s || !s.apps.get(app.id)?.has('IN_APP')) continue;
      s.inbox.push({
        id: state.newId(),
        appId: app.id,
        timestamp: at,
        title: send.message.title,
        body: send.message.body,
        ...(send.message.image !== undefined ? { image: send.message.image } : {}),
        ...(send.message.actions !== undefined ? { actions: send.message.actions.map((a) => ({ ...a })) } : {}),
        ...(send.data !== undefined ? { data: { ...send.data } } : {}),
        ...(send.topicId !== undefined ? { topicId: send.topicId } : {}),
        read: false,
      });
      inboxed++;
    }
  }
  const delivery: DeliveryRecord = {
    appId: app.id,
    recipientType: send.recipient.type,
    recipients: wallets.length,
    channels: [...send.channels],
    at,
    title: send.message.title,
    inboxed,
  };
  if (idempotencyKey !== undefined) delivery.idempotencyKey = idempotencyKey;
  state.recordDelivery(delivery);
}
