import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import type { Context, RequestContext, ServerContext } from '../src/context.js';
import { useRequestDecisions } from '../src/plugins/request-decisions.js';
import { createRequestContext } from '../src/request-context.js';
import { useTestGateway } from './helpers/gateway.js';

const gw = useTestGateway();

/** What the per-request root built: the caller it holds, whether the alerts source holds it too, and the deadline in its call scope. */
const schema = createSchema<ServerContext & Context>({
  typeDefs: 'type Query { caller: String, subscribed: Boolean, deadlineMs: Int }',
  resolvers: {
    Query: {
      caller: (_root: unknown, _args: unknown, ctx: Context) => ctx.credentials.subscriber?.authorization ?? null,
      subscribed: (_root: unknown, _args: unknown, ctx: Context) => {
        ctx.alerts.requireSubscriber();
        return true;
      },
      deadlineMs: (_root: unknown, _args: unknown, ctx: Context) => ctx.scope.deadline?.ms ?? null,
    },
  },
});

function yogaWith(plugins: Plugin[]) {
  return createYoga<ServerContext, RequestContext>({ schema, plugins, context: (initial) => createRequestContext(initial, gw.services) });
}

async function ask(plugins: Plugin[]) {
  const response = await yogaWith(plugins).fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'bearer  abc', 'x-request-timeout-ms': '1234' },
    body: JSON.stringify({ query: '{ caller subscribed deadlineMs }' }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

describe('the per-request root (request-context.ts)', () => {
  it('gets the caller and the deadline the request decisions handed on through the server context', async () => {
    const decisions = useRequestDecisions({
      config: { debugLedger: false },
      deadline: { defaultMs: 10_000, maxMs: 60_000 },
      readiness: { phase: () => 'ready', upstreams: gw.services.upstreamHealth },
    }) as Plugin;
    expect(await ask([decisions])).toEqual({ data: { caller: 'Bearer abc', subscribed: true, deadlineMs: 1234 } });
  });

  it('reads the caller itself and counts the default deadline from now when no plugin handed them on', async () => {
    expect(await ask([])).toEqual({ data: { caller: 'Bearer abc', subscribed: true, deadlineMs: gw.services.config.requestTimeoutDefaultMs } });
  });
});
