import type { Channel } from '../../../models/alerts.js';
import { builder } from '../../builder.js';
import { ChannelRef } from '../../refs.js';
import { CLIENT_MUTATION_ID, INPUT, INPUT_OPTIONAL, MutationPayloadRef, outcome, viewerField, viewerPayload, type PayloadBase } from './common.js';
import { attempt, userError } from './user-errors.js';
import { isEmail, isVerificationCode } from './validate.js';

interface ChannelResult extends PayloadBase {
  channel: Channel | null;
}

function channelPayload(name: string, description: string) {
  return builder.objectRef<ChannelResult>(name).implement({
    description,
    interfaces: [MutationPayloadRef],
    fields: (t) => ({
      channel: t.field({ type: ChannelRef, description: 'The channel as the alerts service answered.', resolve: (p) => p.channel }),
      viewer: t.field(viewerField),
    }),
  });
}

/** An input with nothing to say but the Relay `clientMutationId` (GraphQL input objects need a field). */
function emptyInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({ clientMutationId: t.string({ description: CLIENT_MUTATION_ID }) }),
  });
}

// ---------------------------------------------------------------------------------------------
// Email
// ---------------------------------------------------------------------------------------------

const PrepareEmailChannelInput = builder.inputType('PrepareEmailChannelInput', {
  description: 'The address to verify.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'An email address (at most 254 characters).' }),
    clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
  }),
});

builder.mutationField('prepareEmailChannel', (t) =>
  t.field({
    type: channelPayload('PrepareEmailChannelPayload', 'The result of `prepareEmailChannel`.'),
    description:
      'Sets up the email channel, unverified, and sends a 6-digit code to the address; finish with `verifyEmailChannel`. Refused with `CHANNEL_EXISTS` while one is set up.',
    args: { input: t.arg({ type: PrepareEmailChannelInput, required: true, description: INPUT }) },
    resolve: async (_root, { input }, ctx) => {
      ctx.alerts.requireSubscriber();
      const email = input.email.trim();
      if (!isEmail(email)) {
        return { channel: null, ...outcome(input, [userError('INVALID_EMAIL', 'email is not a valid email address.', ['email'])]) };
      }
      const result = await attempt(() => ctx.alerts.prepareEmailChannel(email), {
          BAD_REQUEST: { code: 'INVALID_EMAIL', field: ['email'] },
          CONFLICT: { code: 'CHANNEL_EXISTS' },
        });
      return result.ok ? { channel: result.value, ...outcome(input) } : { channel: null, ...outcome(input, result.userErrors) };
    },
  }),
);

const VerifyEmailChannelInput = builder.inputType('VerifyEmailChannelInput', {
  description: 'The code sent to the address.',
  fields: (t) => ({
    code: t.string({ required: true, description: 'The 6-digit code from the email.' }),
    clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
  }),
});

builder.mutationField('verifyEmailChannel', (t) =>
  t.field({
    type: channelPayload('VerifyEmailChannelPayload', 'The result of `verifyEmailChannel`.'),
    description: 'Verifies the email channel with the code sent to it; a wrong or expired code is `INVALID_CODE`.',
    args: { input: t.arg({ type: VerifyEmailChannelInput, required: true, description: INPUT }) },
    resolve: async (_root, { input }, ctx) => {
      ctx.alerts.requireSubscriber();
      const code = input.code.trim();
      if (!isVerificationCode(code)) {
        return { channel: null, ...outcome(input, [userError('INVALID_CODE', 'code is the 6 digits from the email.', ['code'])]) };
      }
      const result = await attempt(() => ctx.alerts.verifyEmailChannel(code), {
          BAD_REQUEST: { code: 'INVALID_CODE', field: ['code'] },
          UNPROCESSABLE: { code: 'INVALID_CODE', field: ['code'] },
        });
      return result.ok ? { channel: result.value, ...outcome(input) } : { channel: null, ...outcome(input, result.userErrors) };
    },
  }),
);

builder.mutationField('resendEmailVerification', (t) =>
  t.field({
    type: viewerPayload('ResendEmailVerificationPayload', 'The result of `resendEmailVerification`.'),
    description:
      'Sends a new code to the unverified email channel. `CHANNEL_NOT_FOUND` when there is none to verify, `ALREADY_VERIFIED` when it is verified.',
    args: {
      input: t.arg({
        type: emptyInput('ResendEmailVerificationInput', 'Nothing to choose: the code goes to the email channel being verified.'),
        required: true,
        defaultValue: {},
        description: INPUT_OPTIONAL,
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const result = await attempt(() => ctx.alerts.resendEmailVerification(), { CONFLICT: { code: 'ALREADY_VERIFIED' }, UNPROCESSABLE: { code: 'CHANNEL_NOT_FOUND' } });
      return outcome(input, result.ok ? [] : result.userErrors);
    },
  }),
);

builder.mutationField('deleteEmailChannel', (t) =>
  t.field({
    type: viewerPayload('DeleteEmailChannelPayload', 'The result of `deleteEmailChannel`.'),
    description: 'Removes the email channel (verified or not). Succeeds when there is none.',
    args: {
      input: t.arg({
        type: emptyInput('DeleteEmailChannelInput', 'Nothing to choose: the one email channel goes.'),
        required: true,
        defaultValue: {},
        description: INPUT_OPTIONAL,
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const result = await attempt(() => ctx.alerts.deleteEmailChannel());
      return outcome(input, result.ok ? [] : result.userErrors);
    },
  }),
);

// ---------------------------------------------------------------------------------------------
// Telegram
// ---------------------------------------------------------------------------------------------

interface TelegramResult extends ChannelResult {
  verificationLink: string | null;
}

const PrepareTelegramChannelPayload = builder.objectRef<TelegramResult>('PrepareTelegramChannelPayload').implement({
  description: 'The result of `prepareTelegramChannel`.',
  interfaces: [MutationPayloadRef],
  fields: (t) => ({
    channel: t.field({ type: ChannelRef, description: 'The Telegram channel, unverified until the link is opened.', resolve: (p) => p.channel }),
    verificationLink: t.exposeString('verificationLink', {
      description: 'Open it in Telegram (the bot) to link the account and finish the setup.',
    }),
    viewer: t.field(viewerField),
  }),
});

builder.mutationField('prepareTelegramChannel', (t) =>
  t.field({
    type: PrepareTelegramChannelPayload,
    description: 'Starts linking a Telegram account: answers the link to open in Telegram. Asking again gives a fresh link.',
    args: {
      input: t.arg({
        type: emptyInput('PrepareTelegramChannelInput', 'Nothing to choose: the account is picked in Telegram.'),
        required: true,
        defaultValue: {},
        description: INPUT_OPTIONAL,
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const result = await attempt(() => ctx.alerts.prepareTelegramChannel());
      if (!result.ok) return { channel: null, verificationLink: null, ...outcome(input, result.userErrors) };
      return { channel: result.value.channel, verificationLink: result.value.verificationLink, ...outcome(input) };
    },
  }),
);

builder.mutationField('deleteTelegramChannel', (t) =>
  t.field({
    type: viewerPayload('DeleteTelegramChannelPayload', 'The result of `deleteTelegramChannel`.'),
    description: 'Unlinks the Telegram account. Succeeds when there is none.',
    args: {
      input: t.arg({
        type: emptyInput('DeleteTelegramChannelInput', 'Nothing to choose: the one Telegram channel goes.'),
        required: true,
        defaultValue: {},
        description: INPUT_OPTIONAL,
      }),
    },
    resolve: async (_root, { input }, ctx) => {
      const result = await attempt(() => ctx.alerts.deleteTelegramChannel());
      return outcome(input, result.ok ? [] : result.userErrors);
    },
  }),
);
