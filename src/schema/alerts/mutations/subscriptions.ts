import type { Context } from '../../../context.js';
import type { App } from '../../../models/alerts.js';
import { builder } from '../../builder.js';
import { SubscribedAppRef } from '../../refs.js';
import { CLIENT_MUTATION_ID, INPUT_OPTIONAL, MutationPayloadRef, outcome, viewerField, type PayloadBase } from './common.js';
import { attempt } from './user-errors.js';
import { checkAppIds, Problems } from './validate.js';

export const SubscriptionChannelEnum = builder.enumType('SubscriptionChannel', {
  description: 'A channel an app subscription can name.',
  values: {
    IN_APP: { value: 'IN_APP', description: 'The inbox.' },
    EMAIL: { value: 'EMAIL', description: 'The email channel.' },
    TELEGRAM: { value: 'TELEGRAM', description: 'The Telegram channel.' },
  } as const,
});

interface SubscriptionResult extends PayloadBase {
  /** The apps named by the input; null (every app) when it named none. */
  appIds: string[] | null;
  changed: boolean;
}

/** The apps the mutation changed, read afresh from the apps listing after the change. */
async function changedApps(result: SubscriptionResult, ctx: Context): Promise<App[] | null> {
  if (!result.changed) return null;
  const apps = await ctx.alerts.apps();
  if (!result.appIds) return apps;
  const named = new Set(result.appIds);
  return apps.filter((app) => named.has(app.appId));
}

function subscriptionMutation(field: 'subscribeToApps' | 'unsubscribeFromApps', Name: string, subscribing: boolean): void {
  const Input = builder.inputType(`${Name}Input`, {
    description: subscribing ? 'The apps and channels to subscribe to.' : 'The apps and channels to unsubscribe from.',
    fields: (t) => ({
      appIds: t.stringList({ description: 'Apps by `appId` (1–100 UUIDs); omitted: every app.' }),
      channels: t.field({ type: [SubscriptionChannelEnum], description: 'Channels (at least one); omitted: every channel.' }),
      clientMutationId: t.string({ description: CLIENT_MUTATION_ID }),
    }),
  });

  const Payload = builder.objectRef<SubscriptionResult>(`${Name}Payload`).implement({
    description: `The result of \`${field}\`.`,
    interfaces: [MutationPayloadRef],
    fields: (t) => ({
      apps: t.field({
        type: [SubscribedAppRef],
        description: 'The apps named by the input (every app when it named none), with their subscription state after the change.',
        resolve: (result, _args, ctx) => changedApps(result, ctx),
      }),
      viewer: t.field(viewerField),
    }),
  });

  builder.mutationField(field, (t) =>
    t.field({
      type: Payload,
      description: subscribing
        ? 'Subscribes the caller to apps on channels; an omitted list means all. An unknown app is `UNKNOWN_APP`.'
        : 'Unsubscribes the caller from apps on channels; an omitted list means all. An unknown app is `UNKNOWN_APP`.',
      args: { input: t.arg({ type: Input, required: true, defaultValue: {}, description: INPUT_OPTIONAL }) },
      resolve: async (_root, { input }, ctx) => {
        ctx.alerts.requireSubscriber();
        const problems = new Problems();
        const appIds = checkAppIds(input.appIds, problems);
        const channels = input.channels ?? undefined;
        if (channels && channels.length === 0) problems.add('channels names at least one channel; omit it for every channel.', ['channels']);
        const unchanged = { appIds: appIds ?? null, changed: false };
        if (!problems.empty) return { ...unchanged, ...outcome(input, problems.list) };

        const change = { ...(appIds ? { appIds } : {}), ...(channels ? { channels: [...new Set(channels)] } : {}) };
        const result = await attempt(() => (subscribing ? ctx.alerts.subscribe(change) : ctx.alerts.unsubscribe(change)), {
          UNPROCESSABLE: { code: 'UNKNOWN_APP', field: ['appIds'] },
        });
        if (!result.ok) return { ...unchanged, ...outcome(input, result.userErrors) };
        return { appIds: appIds ?? null, changed: true, ...outcome(input) };
      },
    }),
  );
}

subscriptionMutation('subscribeToApps', 'SubscribeToApps', true);
subscriptionMutation('unsubscribeFromApps', 'UnsubscribeFromApps', false);
