import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentHash } from '../src/plugins/trusted-documents.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

/** deploy/grafana's dashboard reads the gateway's own metrics: every series it names is on /metrics. */

type Panel = { title: string; type: string; datasource: { uid: string }; targets: { expr: string }[] };
const dashboard = JSON.parse(readFileSync(fileURLToPath(new URL('../deploy/grafana/alerts-markets-gateway.json', import.meta.url)), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; query: unknown }[] };
};
const expressions = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
/** The series a PromQL expression reads: identifiers followed by a selector `{`, a range `[` or a closing parenthesis. */
const seriesIn = (expr: string) => [...expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\s*(?=\{|\[)/g)].map((m) => m[1]!).filter((name) => !['by', 'without'].includes(name));
const HISTOGRAM_SERIES = /_(bucket|count|sum)$/;

/** What /metrics says it holds: each metric's TYPE line, and every sample's series name. */
function exposition(text: string) {
  const types = new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const samples = new Set([...text.matchAll(/^([a-zA-Z_:][\w:]*)[{ ]/gm)].map((m) => m[1]!));
  return { types, samples };
}

describe('the Grafana dashboard', () => {
  let gw: TestGateway;
  let metrics: ReturnType<typeof exposition>;

  beforeAll(async () => {
    gw = await startTestGateway({ config: { responseCache: true, rateLimitPerMinute: 3 } });
    // An operation answered twice (a miss, then a hit), and one past the rate limit.
    for (let i = 0; i < 4; i++) await gw.execute('query Ping { __typename }', undefined, undefined, 'Ping');
    metrics = exposition(await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text());
  });
  afterAll(() => gw.close());

  it('covers what operators look at: operations, p99, cache hits, upstream calls, breakers, streams, rate limits', () => {
    const all = expressions.join('\n');
    for (const series of [
      'graphql_yoga_http_duration_count',
      'graphql_yoga_http_duration_bucket',
      'gateway_response_cache_requests_total',
      'gateway_upstream_requests_total',
      'gateway_upstream_breaker_state',
      'gateway_streams_open',
      'gateway_rate_limit_refusals_total',
    ]) {
      expect(all, series).toContain(series);
    }
    expect(all).toContain('histogram_quantile(0.99, sum by (le, operationName)');
  });

  it('names only series that exist on /metrics', () => {
    const named = [...new Set(expressions.flatMap(seriesIn))];
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter((series) => {
      if (metrics.samples.has(series) || metrics.types.has(series)) return false;
      const base = series.replace(HISTOGRAM_SERIES, '');
      return metrics.types.get(base) !== 'histogram';
    });
    expect(missing).toEqual([]);
  });

  it("reads the series it shows: the cache's hit and the rate limit's refusal are counted", () => {
    expect(metrics.samples.has('gateway_rate_limit_refusals_total')).toBe(true);
    expect(metrics.samples.has('gateway_response_cache_requests_total')).toBe(true);
    expect(metrics.samples.has('graphql_yoga_http_duration_bucket')).toBe(true);
  });

  it('takes its Prometheus from a variable and its replicas by job, so it imports into any Grafana', () => {
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(['datasource', 'job']);
    for (const panel of dashboard.panels) {
      expect(panel.datasource.uid, panel.title).toBe('${datasource}');
      expect(panel.targets.length, panel.title).toBeGreaterThan(0);
      for (const { expr } of panel.targets) for (const series of seriesIn(expr)) expect(expr, panel.title).toMatch(new RegExp(`${series}\\{job=~"\\$job"`));
    }
  });
});

describe('the labels of the operation metrics', () => {
  const PING = 'query Ping { __typename }';
  const dir = mkdtempSync(join(tmpdir(), 'gateway-manifest-'));
  let gw: TestGateway;
  beforeAll(async () => {
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ [documentHash(PING)]: PING }));
    gw = await startTestGateway({ config: { persistedDocuments: join(dir, 'manifest.json'), allowArbitraryDocuments: true } });
  });
  afterAll(async () => {
    await gw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('name the operations of registered documents; any other name is "other", so p99 per operation stays bounded', async () => {
    await gw.execute(PING, undefined, undefined, 'Ping');
    for (const name of ['Mine', 'Yours', 'Theirs']) await gw.execute(`query ${name} { __typename }`, undefined, undefined, name);
    await gw.execute('{ __typename }');
    const text = await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
    const counts = text.split('\n').filter((line) => line.startsWith('graphql_yoga_http_duration_count'));
    expect(counts.map((line) => /operationName="([^"]*)"/.exec(line)![1]).sort()).toEqual(['Ping', 'anonymous', 'other']);
    expect(counts.find((line) => line.includes('"other"'))).toMatch(/ 3$/);
  });

  it('hold nothing a caller chooses: a GET with its own query string adds no series', async () => {
    const series = async () => {
      const text = await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
      return text.split('\n').filter((line) => line.startsWith('graphql_yoga_http_duration_count'));
    };
    const get = (extra: string) => gw.app.yoga.fetch(`http://gateway.test/graphql?query=%7B__typename%7D&${extra}`, { headers: { accept: 'application/json' } });
    expect((await get('r=1')).status).toBe(200);
    const before = await series();
    expect((await get('r=2')).status).toBe(200);
    expect((await get('anything=else')).status).toBe(200);
    const after = await series();
    expect(after).toHaveLength(before.length);
    expect(after.join('\n')).not.toMatch(/url=|r=1/);
  });
});

