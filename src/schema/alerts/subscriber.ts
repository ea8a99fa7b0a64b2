import { INBOX_MAX_LIMIT } from '../../sources/index.js';
import { builder } from '../builder.js';
import { pageCost } from '../common/cost.js';
import { ChannelRef, SubscribedAppRef, SubscriberRef, WalletRef } from '../refs.js';
import { ChannelTypeEnum } from './channel.js';
import { inboxCursors, readInbox } from './inbox.js';
import { appIdArg, firstArg } from './inputs.js';
import { NotificationConnectionRef } from './notification.js';

/** The upstream's default page size. */
const INBOX_DEFAULT_FIRST = 10;

builder.node(SubscriberRef, {
  description:
    "The signed-in subscriber of the alerts service: whoever the request's token belongs to. Only the caller's own subscriber can be read.",
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (subscriber) => subscriber.walletAddress },
  loadOne: async (walletAddress, ctx) => {
    const me = await ctx.alerts.identity();
    return me.walletAddress === walletAddress ? me : null;
  },
  fields: (t) => ({
    walletAddress: t.exposeString('walletAddress', { nullable: false, description: "The subscriber's wallet address." }),
    wallet: t.field({
      type: WalletRef,
      nullable: false,
      description: "The subscriber's wallet: its positions and value.",
      resolve: (subscriber) => ({ address: subscriber.walletAddress }),
    }),
    channels: t.field({
      type: [ChannelRef],
      description: 'Every channel the subscriber set up, one per listing key.',
      resolve: (_subscriber, _args, ctx) => ctx.alerts.channels(),
    }),
    channel: t.field({
      type: ChannelRef,
      description:
        'The channel listed under this key (`TELEGRAM` returns what is listed under TELEGRAM, whatever its record says); null when not set up. `UNKNOWN` matches no key: read `channels` for keys this gateway does not know.',
      args: { type: t.arg({ type: ChannelTypeEnum, required: true, description: 'The listing key.' }) },
      resolve: async (_subscriber, { type }, ctx) =>
        type === 'UNKNOWN' ? null : ((await ctx.alerts.channels()).find((c) => c.key.toUpperCase() === type) ?? null),
    }),
    apps: t.field({
      type: [SubscribedAppRef],
      description: 'Every app of the alerts service, with whether the subscriber is subscribed and to which topics.',
      resolve: (_subscriber, _args, ctx) => ctx.alerts.apps(),
    }),
    inbox: t.field({
      type: NotificationConnectionRef,
      complexity: pageCost({ default: INBOX_DEFAULT_FIRST, max: INBOX_MAX_LIMIT }),
      description: `The notification history, newest first: one app's, or the unified inbox of every subscribed app. Forward paging only.`,
      args: {
        first: t.arg.int({ description: `How many (1–${INBOX_MAX_LIMIT}); default ${INBOX_DEFAULT_FIRST}.` }),
        after: t.arg.string({ description: 'A cursor of this inbox (same appId): the page starts after it.' }),
        appId: t.arg.string({ description: "One app's inbox (its UUID); omitted: the unified inbox." }),
      },
      resolve: (_subscriber, args, ctx) => {
        const appId = appIdArg(args.appId);
        const first = firstArg(args.first, INBOX_MAX_LIMIT, INBOX_DEFAULT_FIRST);
        const cursors = inboxCursors(appId, ctx.services.cursors);
        const after = args.after == null ? null : cursors.decode(args.after);
        return readInbox(ctx.alerts, { appId, first, after }, cursors);
      },
    }),
    unreadCount: t.int({
      description: "How many notifications are unread: in one app's inbox, or in the unified inbox.",
      args: { appId: t.arg.string({ description: "One app's (its UUID); omitted: every subscribed app." }) },
      resolve: (_subscriber, args, ctx) => ctx.alerts.summary(appIdArg(args.appId)).then((summary) => summary.unreadCount),
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: SubscriberRef,
    description:
      "The caller, from the request's `Authorization` and `X-Service-Client-Key`; null with an UNAUTHENTICATED error when they are missing or refused.",
    resolve: (_root, _args, ctx) => ctx.alerts.identity(),
  }),
}));
