import type { NotificationChannel, Recipient, SendNotification } from '../../../models/alerts.js';
import { sha256 } from '../../../hashing.js';
import { isSolanaAddress } from '../../common/inputs.js';
import { isUuid } from '../inputs.js';
import { userError, type UserError } from './user-errors.js';
import { charLength, isHttpUrl, Problems } from './validate.js';

/**
 * A count with thousands separators (`10,000`), as `toLocaleString('en-US')` writes it without loading
 * ICU's number-formatting data: the schema's description formats one at start, and that data is several
 * MB of the process's resident memory (bench/PHASES.md, memory).
 */
export function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The limits of docs/upstream.md 1.5, checked by the gateway before any call. */
export const SEND_LIMITS = {
  titleMax: 60,
  bodyMax: 500,
  urlMax: 300,
  actionsMax: 3,
  labelMax: 30,
  dataValueMax: 500,
  /** Not in the contract: the gateway's own bound on the size of one send body. */
  dataKeysMax: 100,
  recipientsMax: 10_000,
  idempotencyKeyMax: 255,
  topicIdMax: 128,
} as const;

const DATA_KEY_RE = /^[A-Za-z0-9_-]{1,64}$/;
const IMAGE_EXT_RE = /\.(jpg|png|webp)$/i;
/** Visible ASCII: it travels as an HTTP header value. */
const IDEMPOTENCY_KEY_RE = /^[\x21-\x7e]+$/;

export interface SendNotificationInput {
  appId: string;
  channels: readonly NotificationChannel[];
  title: string;
  body: string;
  image?: string | null | undefined;
  actions?: readonly { label: string; url: string }[] | null | undefined;
  data?: unknown;
  topicId?: string | null | undefined;
  push?: { showNotification?: boolean | null | undefined; playNotificationSound?: boolean | null | undefined } | null | undefined;
  recipient: {
    walletAddress?: string | null | undefined;
    walletAddresses?: readonly string[] | null | undefined;
    allSubscribers?: boolean | null | undefined;
  };
  idempotencyKey?: string | null | undefined;
}

export interface ValidSend {
  appId: string;
  notification: SendNotification;
  /** Distinct recipients; null for all subscribers (the upstream resolves them at delivery). */
  recipientCount: number | null;
  idempotencyKey: string | null;
  /** Same for two inputs that mean the same send (data key order aside). */
  fingerprint: string;
}

/** Checks every limit of the send contract; any problem means no upstream call. */
export function validateSend(input: SendNotificationInput): { ok: true; value: ValidSend } | { ok: false; userErrors: UserError[] } {
  const problems = new Problems();
  const { appId, title, body } = input;

  if (!isUuid(appId)) problems.add('appId is the app\'s UUID.', ['appId']);

  const channels = [...new Set(input.channels)];
  if (channels.length === 0) problems.add('Name at least one channel: PUSH, IN_APP, EMAIL or TELEGRAM.', ['channels']);

  if (charLength(title) < 1 || charLength(title) > SEND_LIMITS.titleMax) {
    problems.add(`title is 1–${SEND_LIMITS.titleMax} characters.`, ['title']);
  }
  if (charLength(body) < 1 || charLength(body) > SEND_LIMITS.bodyMax) {
    problems.add(`body is 1–${SEND_LIMITS.bodyMax} characters.`, ['body']);
  }

  const image = input.image ?? null;
  if (image !== null) {
    const url = charLength(image) <= SEND_LIMITS.urlMax ? isHttpUrl(image) : null;
    if (!url || !IMAGE_EXT_RE.test(url.pathname)) {
      problems.add(`image is an http(s) URL of at most ${SEND_LIMITS.urlMax} characters ending in .jpg, .png or .webp.`, ['image']);
    }
  }

  const actions = input.actions ?? [];
  if (actions.length > SEND_LIMITS.actionsMax) problems.add(`At most ${SEND_LIMITS.actionsMax} actions.`, ['actions']);
  actions.slice(0, SEND_LIMITS.actionsMax).forEach((action, i) => {
    if (charLength(action.label) < 1 || charLength(action.label) > SEND_LIMITS.labelMax) {
      problems.add(`An action's label is 1–${SEND_LIMITS.labelMax} characters.`, ['actions', i, 'label']);
    }
    if (charLength(action.url) > SEND_LIMITS.urlMax || !isHttpUrl(action.url)) {
      problems.add(`An action's url is an http(s) URL of at most ${SEND_LIMITS.urlMax} characters.`, ['actions', i, 'url']);
    }
  });

  const data = checkData(input.data, problems);

  const topicId = input.topicId ?? null;
  if (topicId !== null && (topicId.length < 1 || topicId.length > SEND_LIMITS.topicIdMax)) {
    problems.add(`topicId is 1–${SEND_LIMITS.topicIdMax} characters; omit it for no topic.`, ['topicId']);
  }

  const idempotencyKey = input.idempotencyKey ?? null;
  if (idempotencyKey !== null && (idempotencyKey.length > SEND_LIMITS.idempotencyKeyMax || !IDEMPOTENCY_KEY_RE.test(idempotencyKey))) {
    problems.add(`idempotencyKey is 1–${SEND_LIMITS.idempotencyKeyMax} visible ASCII characters (no spaces).`, ['idempotencyKey']);
  }

  const recipient = checkRecipient(input.recipient, problems);

  if (!problems.empty || !recipient) return { ok: false, userErrors: problems.list };

  const push = input.push
    ? {
        ...(typeof input.push.showNotification === 'boolean' ? { showNotification: input.push.showNotification } : {}),
        ...(typeof input.push.playNotificationSound === 'boolean' ? { playNotificationSound: input.push.playNotificationSound } : {}),
      }
    : undefined;
  const notification: SendNotification = {
    channels,
    title,
    body,
    ...(image !== null ? { image } : {}),
    ...(actions.length > 0 ? { actions: actions.map((a) => ({ label: a.label, url: a.url })) } : {}),
    ...(topicId !== null ? { topicId } : {}),
    ...(data ? { data } : {}),
    ...(push && Object.keys(push).length > 0 ? { push } : {}),
    recipient,
  };
  const recipientCount =
    'walletAddress' in recipient ? 1 : 'walletAddresses' in recipient ? recipient.walletAddresses.length : null;
  return {
    ok: true,
    value: { appId, notification, recipientCount, idempotencyKey, fingerprint: fingerprint(appId, notification) },
  };
}

/** `data`: an object of string values, keys `^[A-Za-z0-9_-]{1,64}$`, values 1–500 characters; keys sorted. */
function checkData(data: unknown, problems: Problems): Record<string, string> | undefined {
  if (data === null || data === undefined) return undefined;
  if (typeof data !== 'object' || Array.isArray(data)) {
    problems.add('data is an object whose values are strings.', ['data']);
    return undefined;
  }
  // No prototype: a `__proto__` key (valid by the contract's pattern) stays a plain key, not lost.
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const keys = Object.keys(data);
  if (keys.length > SEND_LIMITS.dataKeysMax) {
    problems.add(`data holds at most ${SEND_LIMITS.dataKeysMax} keys; got ${keys.length}.`, ['data']);
    return undefined;
  }
  for (const key of keys.sort()) {
    const value = (data as Record<string, unknown>)[key];
    if (!DATA_KEY_RE.test(key)) problems.add('A data key is 1–64 characters of A–Z, a–z, 0–9, _ and -.', ['data', key]);
    if (typeof value !== 'string' || charLength(value) < 1 || charLength(value) > SEND_LIMITS.dataValueMax) {
      problems.add(`A data value is a string of 1–${SEND_LIMITS.dataValueMax} characters.`, ['data', key]);
    } else {
      out[key] = value;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The `@oneOf` recipient. GraphQL already enforces exactly one field; this checks its value. */
function checkRecipient(recipient: SendNotificationInput['recipient'], problems: Problems): Recipient | null {
  const { walletAddress, walletAddresses, allSubscribers } = recipient;
  if (typeof walletAddress === 'string') {
    if (!isSolanaAddress(walletAddress)) {
      problems.add('walletAddress is a base58 address of 32–44 characters.', ['recipient', 'walletAddress']);
      return null;
    }
    return { walletAddress };
  }
  if (walletAddresses) {
    const distinct = [...new Set(walletAddresses)];
    if (distinct.length === 0) {
      problems.add('walletAddresses holds 1–10,000 addresses.', ['recipient', 'walletAddresses']);
      return null;
    }
    if (distinct.length > SEND_LIMITS.recipientsMax) {
      problems.add(
        `walletAddresses holds at most ${grouped(SEND_LIMITS.recipientsMax)} distinct addresses (${grouped(distinct.length)} given); split the send.`,
        ['recipient', 'walletAddresses'],
        'TOO_MANY_RECIPIENTS',
      );
      return null;
    }
    let valid = true;
    walletAddresses.forEach((address, i) => {
      if (!isSolanaAddress(address)) {
        valid = false;
        problems.add('A wallet address is base58, 32–44 characters.', ['recipient', 'walletAddresses', i]);
      }
    });
    return valid ? { walletAddresses: distinct } : null;
  }
  if (allSubscribers === true) return { allSubscribers: true };
  problems.add('allSubscribers can only be true; to narrow the audience use walletAddress or walletAddresses.', ['recipient', 'allSubscribers']);
  return null;
}

function fingerprint(appId: string, notification: SendNotification): string {
  return sha256(JSON.stringify([appId, notification]));
}

/**
 * Turns the issues of a send 400 (`{"message", "issues": [{"path": "message.actions[0].url", ...}]}`)
 * into `userErrors` with the gateway's field paths; anything else becomes one entry. The messages
 * are the gateway's own: the upstream's text can carry internals.
 */
export function sendRefusalErrors(upstreamMessage: string | undefined): UserError[] {
  const fallback = [userError('INVALID_INPUT', 'The alerts service refused the notification.')];
  if (!upstreamMessage) return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(upstreamMessage);
  } catch {
    return fallback;
  }
  const issues = (parsed as { issues?: unknown } | null)?.issues;
  if (!Array.isArray(issues) || issues.length === 0) return fallback;
  const problems = new Problems();
  for (const issue of issues) {
    const { path } = (issue ?? {}) as { path?: unknown };
    if (typeof path !== 'string') continue;
    const field = path
      .replace(/^message\./, '')
      .split(/[.[\]]+/)
      .filter(Boolean);
    problems.add(`The alerts service refused ${field.join('.') || 'the input'}.`, field.length > 0 ? field : []);
  }
  return problems.empty ? fallback : problems.list;
}
