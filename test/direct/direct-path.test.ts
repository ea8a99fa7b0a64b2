import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { useTwinServers, type Answer, type Sent } from '../helpers/twin-servers.js';

/**
 * Executed requests answered at the node listener (src/direct/) are the answers Yoga's pipeline gives:
 * the same status, headers in the same order and bytes (the Date line and a generated X-Request-Id
 * aside). Each case is sent to two servers over one gateway, the pipeline alone and the direct path in
 * front of it, after the document was run twice through the pipeline (the direct path takes only
 * documents validated and compiled before), and each side executes (no cached hit in between).
 */
const ORIGIN = 'https://app.example.com';
/** Over 1 KiB: compressed for a client that accepts it. */
const PAGE = '{ markets(first: 20) { edges { node { marketId productName provider { name } } } } }';
const VIEWER = '{ viewer { id channels { key value verified } } }';
const NAMED = 'query Page($first: Int) { markets(first: $first) { edges { node { marketId } } } }';
/** Above the production gateway's cost limit below. */
const COSTLY = '{ markets(first: 100) { edges { node { marketId provider { name } } } } }';

function expectSame(viaPipeline: Answer, viaDirect: Answer) {
  expect(viaDirect.head).toBe(viaPipeline.head);
  expect(viaDirect.body.toString('latin1')).toBe(viaPipeline.body.toString('latin1'));
}

describe('the direct path, response cache off', () => {
  const gw = useTestGateway({ config: { corsOrigins: [ORIGIN] }, resetControls: true });
  const twins = useTwinServers(gw);
  const warm = async (sent: Sent) => {
    for (let i = 0; i < 2; i++) await twins.pipeline(sent);
  };
  const both = async (sent: Sent, direct = true) => {
    await warm(sent);
    const before = twins.counts.direct;
    const viaPipeline = await twins.pipeline(sent);
    const viaDirect = await twins.direct(sent);
    expect(twins.counts.direct - before).toBe(direct ? 1 : 0);
    return { viaPipeline, viaDirect };
  };

  const cases: [string, () => Sent][] = [
    ['a public page', () => ({ query: PAGE })],
    ['a signed-in viewer', () => ({ query: VIEWER, headers: gw.viewerHeaders })],
    ['a signed-out viewer (a field refused)', () => ({ query: VIEWER })],
    ['variables and an operation name', () => ({ query: NAMED, variables: { first: 3 }, operationName: 'Page' })],
    ['application/graphql-response+json', () => ({ query: PAGE, headers: { accept: 'application/graphql-response+json' } })],
    ['a br answer', () => ({ query: PAGE, headers: { 'accept-encoding': 'br' } })],
    ['a gzip answer', () => ({ query: PAGE, headers: { 'accept-encoding': 'gzip' } })],
    ['identity for a client that refuses both', () => ({ query: PAGE, headers: { 'accept-encoding': 'identity' } })],
    ['an allowed origin', () => ({ query: PAGE, headers: { origin: ORIGIN } })],
    ['another origin', () => ({ query: PAGE, headers: { origin: 'https://other.example' } })],
    ['X-Request-Timeout-Ms', () => ({ query: PAGE, headers: { 'x-request-timeout-ms': '5000' } })],
    ["the caller's own X-Request-Id", () => ({ query: PAGE, headers: { 'x-request-id': 'req-42' } })],
    ['a GET', () => ({ method: 'GET', query: PAGE })],
  ];
  for (const [name, sent] of cases) {
    it(`answers ${name} as the pipeline does, without Yoga`, async () => {
      const yogaBefore = twins.counts.yogaBehindDirect;
      const { viaPipeline, viaDirect } = await both(sent());
      expect(viaDirect.status).toBe(200);
      expectSame(viaPipeline, viaDirect);
      expect(twins.counts.yogaBehindDirect).toBe(yogaBefore);
    });
  }

  it('reports the operation metrics the pipeline reports (duration, execute time, errors)', async () => {
    const series = ['graphql_yoga_http_duration', 'graphql_envelop_phase_execute', 'graphql_envelop_error_result'];
    const counts = async () => {
      const seen = new Map<string, number>();
      for (const name of series) {
        for (const value of (await gw.services.registry.getSingleMetric(name)!.get()).values as { metricName?: string; labels: object; value: number }[]) {
          if (value.metricName !== undefined && !value.metricName.endsWith('_count') && name !== 'graphql_envelop_error_result') continue;
          seen.set(`${name} ${JSON.stringify(value.labels)}`, value.value);
        }
      }
      return seen;
    };
    const delta = (after: Map<string, number>, before: Map<string, number>) => [...after].map(([key, value]) => [key, value - (before.get(key) ?? 0)]).filter(([, d]) => d !== 0);
    for (const sent of [{ query: NAMED, variables: { first: 2 }, operationName: 'Page' }, { query: VIEWER }]) {
      await warm(sent);
      const start = await counts();
      await twins.pipeline(sent);
      const afterPipeline = await counts();
      await twins.direct(sent);
      expect(delta(await counts(), afterPipeline)).toEqual(delta(afterPipeline, start));
      expect(delta(afterPipeline, start).length).toBeGreaterThan(0);
    }
  });

  it('answers variables that do not coerce as the pipeline does', async () => {
    const { viaPipeline, viaDirect } = await both({ query: NAMED, variables: { first: 'many' }, operationName: 'Page' });
    expect(JSON.parse(viaDirect.body.toString()).errors).toHaveLength(1);
    expectSame(viaPipeline, viaDirect);
  });

  it('answers partial data with an upstream down as the pipeline does', async () => {
    const query = '{ viewer { id channels { key } } markets(first: 2) { edges { node { marketId } } } }';
    await warm({ query, headers: gw.viewerHeaders });
    gw.sim.controls.setFault({ service: 'alerts' }, { status: 503 });
    const { viaPipeline, viaDirect } = await both({ query, headers: gw.viewerHeaders });
    expect(JSON.parse(viaDirect.body.toString()).errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expectSame(viaPipeline, viaDirect);
  });

  it('hands a bad X-Request-Timeout-Ms, a mutation and a document never seen to the pipeline', async () => {
    await both({ query: PAGE, headers: { 'x-request-timeout-ms': 'soon' } }, false);
    const before = twins.counts.direct;
    await twins.direct({ query: '{ markets(first: 4) { edges { node { marketId } } } }' });
    await twins.direct({ query: 'mutation { markAllRead { ok } }', headers: gw.viewerHeaders });
    expect(twins.counts.direct).toBe(before);
  });

  it('runs identical concurrent requests once, with the exact upstream calls of one', async () => {
    const sent = { query: VIEWER, headers: gw.viewerHeaders };
    await warm(sent);
    gw.sim.controls.resetCounts();
    await twins.direct(sent);
    const one = gw.sim.controls.counts();
    gw.sim.controls.setLatency({ service: 'alerts' }, { fixedMs: 150 });
    gw.sim.controls.resetCounts();
    const before = twins.counts.direct;
    const answers = await Promise.all(Array.from({ length: 4 }, () => twins.direct(sent)));
    expect(twins.counts.direct - before).toBe(4);
    expect(new Set(answers.map((answer) => answer.body.toString())).size).toBe(1);
    expect(gw.sim.controls.counts()).toEqual(one);
  });

  it('lets a late follower keep its own deadline (issue 33 item 4), direct and pipeline requests sharing one leader', async () => {
    const search = { query: '{ searchAssets(query: "sol", first: 5) { edges { node { assetId } } } }', headers: { 'x-request-timeout-ms': '1000' } };
    const route = { service: 'assets' as const, route: 'GET /v0/search' };
    await warm(search);
    gw.sim.controls.resetCounts();
    gw.sim.controls.setLatency(route, { fixedMs: 1_600 });
    const leader = twins.direct(search);
    await new Promise((resolve) => setTimeout(resolve, 850));
    gw.sim.controls.setLatency(route, { fixedMs: 20 });
    const followers = await Promise.all([twins.direct(search), twins.direct(search), twins.pipeline(search)]);
    expect((await leader).body.toString()).toContain('DEADLINE');
    for (const follower of followers) expect(JSON.parse(follower.body.toString()).data.searchAssets.edges).toHaveLength(5);
    expect(gw.sim.controls.count('assets', 'GET /v0/search')).toBe(2);
  });
});

describe('the direct path, production', () => {
  const gw = useTestGateway({ config: { production: true, rateLimitPerMinute: 12, maxQueryCost: 150 }, resetControls: true });
  const twins = useTwinServers(gw);

  it('hands a cost refusal to the pipeline, which refuses it', async () => {
    for (let i = 0; i < 2; i++) await twins.pipeline({ query: COSTLY });
    const before = twins.counts.direct;
    const viaPipeline = await twins.pipeline({ query: COSTLY });
    const viaDirect = await twins.direct({ query: COSTLY });
    expect(twins.counts.direct).toBe(before);
    expect(viaDirect.status).toBe(400);
    expectSame(viaPipeline, viaDirect);
  });

  it('masks an upstream failure as the pipeline does', async () => {
    const query = '{ markets(first: 2) { edges { node { marketId } } } }';
    for (let i = 0; i < 2; i++) await twins.pipeline({ query });
    gw.sim.controls.setFault({ service: 'markets' }, { status: 500, body: 'stack at http://10.0.0.7' });
    const before = twins.counts.direct;
    const viaPipeline = await twins.pipeline({ query });
    const viaDirect = await twins.direct({ query });
    expect(twins.counts.direct - before).toBe(1);
    expect(viaDirect.body.toString()).not.toContain('10.0.0.7');
    expectSame(viaPipeline, viaDirect);
  });

  it('refuses past the rate limit as the pipeline does, counting each request once', async () => {
    const query = '{ markets(first: 3) { edges { node { marketId } } } }';
    // 4 requests above, 2 to warm, 6 more: the 12th is the last allowed.
    for (let i = 0; i < 2; i++) await twins.pipeline({ query });
    for (let i = 0; i < 5; i++) expect((await twins.direct({ query })).status).toBe(200);
    expect((await twins.pipeline({ query })).status).toBe(200);
    const viaPipeline = await twins.pipeline({ query });
    const before = twins.counts.direct;
    const viaDirect = await twins.direct({ query });
    expect(twins.counts.direct - before).toBe(1);
    expect(viaDirect.status).toBe(429);
    const digitsOut = (answer: Answer) => ({ ...answer, body: Buffer.from(answer.body.toString().replace(/\d+/g, 'N')) });
    expectSame(digitsOut(viaPipeline), digitsOut(viaDirect));
  });
});

describe('the direct path, response cache on', () => {
  const gw = useTestGateway({ config: { responseCache: true, corsOrigins: [ORIGIN] }, resetControls: true });
  const twins = useTwinServers(gw);

  it('executes a miss, stores it, and leaves the next request to the hit', async () => {
    for (let i = 0; i < 2; i++) await twins.pipeline({ query: NAMED, variables: { first: i + 1 }, operationName: 'Page' });
    const sent = { query: NAMED, variables: { first: 7 }, operationName: 'Page' };
    const before = twins.counts.direct;
    const miss = await twins.direct(sent);
    expect(twins.counts.direct - before).toBe(1);
    expect(miss.head).toMatch(/\r\ncache-control: public, max-age=\d+/);
    const hit = await twins.direct(sent);
    expect(twins.counts.direct - before).toBe(1);
    expect(hit.head).toMatch(/\r\nage: \d+/);
    expect(hit.body.equals(miss.body)).toBe(true);
  });

  it('answers no-cache as the pipeline does, and a GET with a matching If-None-Match 304', async () => {
    const sent: Sent = { method: 'GET', query: PAGE, headers: { 'cache-control': 'no-cache', origin: ORIGIN } };
    for (let i = 0; i < 2; i++) await twins.pipeline(sent);
    const before = twins.counts.direct;
    const viaPipeline = await twins.pipeline(sent);
    const viaDirect = await twins.direct(sent);
    expectSame(viaPipeline, viaDirect);
    const etag = /\r\netag: ([^\r]+)/.exec(viaDirect.head)![1]!;
    const conditional = { ...sent, headers: { ...sent.headers, 'if-none-match': etag } };
    const notModified = [await twins.pipeline(conditional), await twins.direct(conditional)];
    expect(notModified.map((answer) => answer.status)).toEqual([304, 304]);
    expectSame(notModified[0]!, notModified[1]!);
    expect(twins.counts.direct - before).toBe(2);
  });
});
