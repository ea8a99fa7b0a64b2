import { builder } from '../../builder.js';
import { CLIENT_MUTATION_ID, INPUT, MutationPayloadRef, outcome, type PayloadBase } from './common.js';
import { attempt, userError, type UserError } from './user-errors.js';
import { grouped, SEND_LIMITS, sendRefusalErrors, validateSend } from './send-input.js';

export const NotificationChannelEnum = builder.enumType('NotificationChannel', {
  description: 'A channel a notification is delivered on.',
  values: {
    PUSH: { value: 'PUSH', description: 'Mobile push (the devices registered with `registerPushDevice`).' },
    IN_APP: { value: 'IN_APP', description: 'The inbox (`Subscriber.inbox`).' },
    EMAIL: { value: 'EMAIL', description: 'The verified email channel.' },
    TELEGRAM: { value: 'TELEGRAM', description: 'The linked Telegram chat.' },
  } as const,
});

const NotificationActionInput = builder.inputType('NotificationActionInput', {
  description: 'A link button under the notification.',
  fields: (t) => ({
    label: t.string({ required: true, description: `Button text, 1–${SEND_LIMITS.labelMax} characters.` }),
    url: t.string({ required: true, description: `Where it leads: an http(s) URL of at most ${SEND_LIMITS.urlMax} characters.` }),
  }),
});

const NotificationRecipientInput = builder.inputType('NotificationRecipient', {
  isOneOf: true,
  description: 'Who receives the notification: exactly one of the three fields.',
  fields: (t) => ({
    walletAddress: t.string({ description: 'One subscriber, by wallet address (base58, 32–44 characters).' }),
    walletAddresses: t.stringList({
      description: `1 to ${grouped(SEND_LIMITS.recipientsMax)} distinct wallet addresses (duplicates are dropped); sent in one call.`,
    }),
    allSubscribers: t.boolean({ description: 'Every subscriber of the app: set it to `true`.' }),
  }),
});

const PushOptionsInput = builder.inputType('PushOptionsInput', {
  description: 'How a push notification shows on the device.',
  fields: (t) => ({
    showNotification: t.boolean({ description: 'Show it in the system tray (default: the service\'s).' }),
    playNotificationSound: t.boolean({ description: 'Play the notification sound (default: the service\'s).' }),
  }),
});

const SendNotificationInput = builder.inputType('SendNotificationInput', {
  description: 'A notification to send on behalf of an app. Every limit is checked before anything is sent.',
  fields: (t) => ({
    appId: t.string({ required: true, description: 'The sending app (a UUID) that the `X-Service-Api-Key` owns.' }),
    channels: t.field({
      type: [NotificationChannelEnum],
      required: true,
      description: 'Where to deliver; at least one (repeats are dropped).',
    }),
    title: t.string({ required: true, description: `1–${SEND_LIMITS.titleMax} characters.` }),
    body: t.string({ required: true, description: `1–${SEND_LIMITS.bodyMax} characters.` }),
    image: t.string({
      description: `An http(s) URL of at most ${SEND_LIMITS.urlMax} characters ending in .jpg, .png or .webp.`,
    }),
    actions: t.field({ type: [NotificationActionInput], description: `Up to ${SEND_LIMITS.actionsMax} link buttons.` }),
    data: t.field({
      type: 'JSON',
      description:
        'Your own data, delivered with the notification: an object of string values; keys match `^[A-Za-z0-9_-]{1,64}$`, values 1–500 characters.',
    }),
    topicId: t.string({ description: 'One of the app\'s topics; subscribers who muted it are skipped.' }),
    push: t.field({ type: PushOptionsInput, description: 'Push display options.' }),
    recipient: t.field({ type: NotificationRecipientInput, required: true, description: 'Who receives it.' }),
    idempotencyKey: t.string({
      description: `1–${SEND_LIMITS.idempotencyKeyMax} visible ASCII characters. A repeat with the same key and input within 24 h answers the first result without sending again; the same key with another input is refused.`,
    }),
    clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
  }),
});

interface SendResult extends PayloadBase {
  accepted: boolean;
  recipientCount: number | null;
}

const SendNotificationPayload = builder.objectRef<SendResult>('SendNotificationPayload').implement({
  description: 'The result of `sendNotification`.',
  interfaces: [MutationPayloadRef],
  fields: (t) => ({
    accepted: t.exposeBoolean('accepted', {
      description: 'The alerts service accepted the notification; delivery is asynchronous.',
    }),
    recipientCount: t.exposeInt('recipientCount', {
      nullable: true,
      description: 'Distinct wallets addressed; null for all subscribers (the service resolves them at delivery).',
    }),
  }),
});

builder.mutationField('sendNotification', (t) =>
  t.field({
    type: SendNotificationPayload,
    description:
      'Sends a notification as an app. Needs the app\'s `X-Service-Api-Key` header (forwarded to this call only); without it the answer is an `UNAUTHENTICATED` error.',
    args: { input: t.arg({ type: SendNotificationInput, required: true, description: INPUT }) },
    resolve: async (_root, { input }, ctx) => {
      const refused = (userErrors: UserError[]): SendResult => ({ accepted: false, recipientCount: null, ...outcome(input, userErrors) });

      // `UNAUTHENTICATED` without the app's key, before the input is looked at.
      ctx.alerts.requireAppKey();

      const checked = validateSend(input);
      if (!checked.ok) return refused(checked.userErrors);
      const { appId, notification, recipientCount, idempotencyKey, fingerprint } = checked.value;

      const result = await attempt(
        () => ctx.alerts.send(appId, notification, { recipientCount }, idempotencyKey ? { idempotencyKey, fingerprint } : null),
        {
          BAD_REQUEST: (error) => sendRefusalErrors(error.upstreamMessage),
          FORBIDDEN: { code: 'APP_NOT_OWNED', field: ['appId'] },
          UNPROCESSABLE: { code: 'IDEMPOTENCY_KEY_REUSED', field: ['idempotencyKey'] },
        },
      );
      if (!result.ok) return refused(result.userErrors);
      if (result.value === 'conflict') {
        return refused([
          userError('IDEMPOTENCY_KEY_REUSED', 'This idempotencyKey was used with a different input within the last 24 hours; use a new key.', [
            'idempotencyKey',
          ]),
        ]);
      }
      return { accepted: true, recipientCount: result.value.recipientCount, ...outcome(input) };
    },
  }),
);
