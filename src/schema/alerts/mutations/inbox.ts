import { builder } from '../../builder.js';
import { CLIENT_MUTATION_ID, INPUT_OPTIONAL, MutationPayloadRef, outcome, viewerField, type PayloadBase } from './common.js';
import { attempt } from './user-errors.js';
import { checkAppIds, Problems } from './validate.js';

interface InboxResult extends PayloadBase {
  /** The inbox whose count the payload shows: the one app named, or null for the unified inbox. */
  countScope: string | null;
  changed: boolean;
}

function inboxInput(name: string, description: string) {
  return builder.inputType(name, {
    description,
    fields: (t) => ({
      appIds: t.stringList({ description: 'Apps by `appId` (1–100 UUIDs); omitted: every app.' }),
      clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
    }),
  });
}

const MarkNotificationsReadPayload = builder.objectRef<InboxResult>('MarkNotificationsReadPayload').implement({
  description: 'The result of `markNotificationsRead`.',
  interfaces: [MutationPayloadRef],
  fields: (t) => ({
    unreadCount: t.int({
      description: 'Unread notifications after the change: of the app when `appIds` named one, else of the unified inbox.',
      resolve: async (result, _args, ctx) => (result.changed ? (await ctx.alerts.summary(result.countScope)).unreadCount : null),
    }),
    viewer: t.field(viewerField),
  }),
});

const ClearReadNotificationsPayload = builder.objectRef<InboxResult>('ClearReadNotificationsPayload').implement({
  description: 'The result of `clearReadNotifications`.',
  interfaces: [MutationPayloadRef],
  fields: (t) => ({ viewer: t.field(viewerField) }),
});

function inboxMutation(
  field: 'markNotificationsRead' | 'clearReadNotifications',
  options: { input: ReturnType<typeof inboxInput>; payload: typeof MarkNotificationsReadPayload; description: string; read: boolean },
): void {
  builder.mutationField(field, (t) =>
    t.field({
      type: options.payload,
      description: options.description,
      args: { input: t.arg({ type: options.input, required: true, defaultValue: {}, description: INPUT_OPTIONAL }) },
      resolve: async (_root, { input }, ctx) => {
        ctx.alerts.requireSubscriber();
        const problems = new Problems();
        const appIds = checkAppIds(input.appIds, problems);
        const countScope = appIds?.length === 1 ? appIds[0]! : null;
        if (!problems.empty) return { countScope, changed: false, ...outcome(input, problems.list) };
        const result = await attempt(() => (options.read ? ctx.alerts.markRead(appIds) : ctx.alerts.clearRead(appIds)));
        return { countScope, changed: result.ok, ...outcome(input, result.ok ? [] : result.userErrors) };
      },
    }),
  );
}

inboxMutation('markNotificationsRead', {
  input: inboxInput('MarkNotificationsReadInput', 'Whose notifications to mark read.'),
  payload: MarkNotificationsReadPayload,
  description: 'Marks every notification of the given apps (all when omitted) read.',
  read: true,
});

inboxMutation('clearReadNotifications', {
  input: inboxInput('ClearReadNotificationsInput', 'Whose read notifications to clear.'),
  payload: ClearReadNotificationsPayload,
  description: 'Removes the read notifications of the given apps (all when omitted) from the inbox; unread ones stay.',
  read: false,
});
