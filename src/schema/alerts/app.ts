import type { Context } from '../../context.js';
import type { App, SubscribedApp, Topic, TopicRef as TopicSummary } from '../../models/alerts.js';
import { builder } from '../builder.js';
import { SubscribedAppRef } from '../refs.js';
import { isUuid } from './inputs.js';

/** A topic as at hand: a notification's carries id, name and slug only; the apps listing the rest. */
export type TopicView = TopicSummary & Partial<Pick<Topic, 'description' | 'subscribed'>>;

export const TopicRef = builder.objectRef<TopicView>('Topic');

/**
 * The app of the caller's apps listing (one `GET /v2/apps` per request) that a partial record stands
 * for. The fields below wait for it only when the record lacks the value: a record that has it answers
 * at once, with no promise for the executor to wait on.
 */
function listed(app: SubscribedApp, ctx: Context): Promise<App | null> {
  return ctx.alerts.app(app.appId);
}

async function listedTopic(topicId: string, ctx: Context): Promise<Topic | null> {
  for (const app of await ctx.alerts.apps()) {
    const topic = app.topics.find((t) => t.topicId === topicId);
    if (topic) return topic;
  }
  return null;
}

builder.node(SubscribedAppRef, {
  description:
    "An app that sends notifications, with the caller's subscription to it. The same type serves the apps listing, a channel's apps and a notification's app; what a record lacks comes from the caller's apps listing.",
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (app) => app.appId },
  loadOne: (appId, ctx) => (isUuid(appId) ? ctx.alerts.app(appId) : null),
  fields: (t) => ({
    appId: t.exposeString('appId', { nullable: false, description: "The alerts service's own id of the app (a UUID)." }),
    name: t.string({
      nullable: false,
      description: 'Display name.',
      resolve: (app, _args, ctx) =>
        app.name ||
        listed(app, ctx).then(
          (found) => found?.name || '',
          () => '',
        ),
    }),
    icon: t.exposeString('icon', { description: 'URL of the icon, when the app has one.' }),
    description: t.string({
      description: 'What the app notifies about.',
      resolve: (app, _args, ctx) => (app.description !== undefined ? app.description : listed(app, ctx).then((found) => found?.description ?? null)),
    }),
    subscribed: t.boolean({
      description: 'Whether the caller is subscribed to the app on at least one channel.',
      resolve: (app, _args, ctx) => (app.subscribed !== undefined ? app.subscribed : listed(app, ctx).then((found) => found?.subscribed ?? null)),
    }),
    topics: t.field({
      type: [TopicRef],
      description: "The app's topics, with the caller's subscription to each; empty when the app has none.",
      resolve: (app, _args, ctx) => (app.topics !== undefined ? app.topics : listed(app, ctx).then((found) => found?.topics ?? null)),
    }),
  }),
});

builder.node(TopicRef, {
  description: "A subject an app notifies about, which a subscriber can follow or not.",
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (topic) => topic.topicId },
  loadOne: (topicId, ctx) => listedTopic(topicId, ctx),
  fields: (t) => ({
    topicId: t.exposeString('topicId', { nullable: false, description: "The alerts service's own id of the topic." }),
    name: t.exposeString('name', { nullable: false, description: 'Display name.' }),
    slug: t.exposeString('slug', { nullable: false, description: 'Stable machine name, e.g. `rate-changes`.' }),
    description: t.string({
      description: 'What the topic covers.',
      resolve: async (topic, _args, ctx) =>
        topic.description !== undefined ? topic.description : ((await listedTopic(topic.topicId, ctx))?.description ?? null),
    }),
    subscribed: t.boolean({
      description: 'Whether the caller follows the topic.',
      resolve: async (topic, _args, ctx) =>
        topic.subscribed !== undefined ? topic.subscribed : ((await listedTopic(topic.topicId, ctx))?.subscribed ?? null),
    }),
  }),
});
