import { builder } from '../builder.js';
import { ChannelRef, SubscribedAppRef } from '../refs.js';

export const ChannelTypeEnum = builder.enumType('ChannelType', {
  description: 'Where notifications reach a subscriber.',
  values: {
    EMAIL: { value: 'EMAIL', description: 'An email address.' },
    TELEGRAM: { value: 'TELEGRAM', description: 'A Telegram account.' },
    PUSH: { value: 'PUSH', description: 'Push notifications to a mobile device.' },
    IN_APP: { value: 'IN_APP', description: 'The in-app inbox.' },
    UNKNOWN: { value: 'UNKNOWN', description: 'A type this gateway does not know yet; `rawType` says what the upstream sent.' },
  } as const,
});

builder.node(ChannelRef, {
  description:
    "One of the caller's notification channels, as listed under its key. The key is where the channel is listed, `type` what its record says: they can differ (a record of type EMAIL may be listed under TELEGRAM).",
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (channel) => channel.id },
  loadOne: async (id, ctx) => (await ctx.alerts.channels()).find((channel) => channel.id === id) ?? null,
  fields: (t) => ({
    key: t.exposeString('key', { nullable: false, description: 'The listing key, as the alerts service sent it (`EMAIL`, `TELEGRAM`, ...).' }),
    type: t.expose('type', {
      type: ChannelTypeEnum,
      nullable: false,
      description: "What the channel's record says it is; `UNKNOWN` for a type this gateway does not know.",
    }),
    rawType: t.exposeString('rawType', { nullable: false, description: 'The type exactly as the alerts service sent it.' }),
    value: t.exposeString('value', {
      nullable: false,
      description: 'The address notifications go to (an email address, a Telegram handle); empty while not set up.',
    }),
    verified: t.exposeBoolean('verified', { nullable: false, description: 'Whether the subscriber proved they own the address.' }),
    subscribed: t.exposeBoolean('subscribed', { nullable: false, description: 'Whether notifications are delivered on this channel.' }),
    subscribedApps: t.expose('subscribedApps', {
      type: [SubscribedAppRef],
      nullable: false,
      description: 'The apps that notify the caller on this channel.',
    }),
  }),
});
