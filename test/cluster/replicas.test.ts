import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_TOPIC } from '../../src/events/redis-channel.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import { trending } from '../events/helpers.js';
import { requireBinary, startProcess, startRedis, stopProcess, type StartedProcess } from '../helpers/processes.js';
import { ROOT, SECRET, RATE_LIMIT, SEND_ROUTE, type Replica, firstEvent, haproxyConfig, untilReady, distinctFreePorts } from '../helpers/cluster.js';

/**
 * Two gateway replicas as real processes (`node --import tsx src/server.ts`), the simulator as a
 * process of its own, a real redis-server and a real HAProxy in front, all on free loopback ports.
 */
const FILE = 'test/cluster/replicas.test.ts';
const haveRedis = requireBinary(FILE, 'redis-server', ['--version'], 'apt-get install redis-server');
const haveHaproxy = requireBinary(FILE, 'haproxy', ['-v'], 'apt-get install haproxy');

describe.runIf(haveRedis && haveHaproxy)('two replicas behind a real load balancer', () => {
  const started: StartedProcess[] = [];
  let dir: string;
  let probe: Redis;
  let simUrl: string;
  let demo: { apiKey: string; appId: string; wallet: string };
  let a: Replica;
  let b: Replica;
  let lb: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-'));
    const [redisPort, simPort, portA, portB, lbPort] = await distinctFreePorts(5);

    const redisUrl = `redis://127.0.0.1:${redisPort}`;
    simUrl = `http://127.0.0.1:${simPort}`;
    const env = {
      ...process.env,
      ALERTS_URL: `${simUrl}/alerts`,
      MARKETS_URL: `${simUrl}/markets`,
      ASSETS_URL: `${simUrl}/assets`,
      REDIS_URL: redisUrl,
      WEBHOOK_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      // The test's clients and HAProxy are all on loopback: a client's X-Forwarded-For names it (the load
      // below counts as many callers), as a balancer's would.
      TRUSTED_PROXIES: 'loopback',
      LOG_LEVEL: 'warn',
    };
    // Each process is recorded as it starts, so afterAll stops it even if another one fails.
    const track = (one: StartedProcess) => (started.push(one), one);
    const replica = async (port: number): Promise<Replica> => {
      const gateway = track(
        await startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], null, { cwd: ROOT, env: { ...env, PORT: String(port) } }),
      );
      const url = `http://127.0.0.1:${port}`;
      await untilReady(url, gateway);
      return { url, process: gateway };
    };
    // All at once (the ports are chosen): a replica up before the simulator builds its market index later.
    const [, sim, replicaA, replicaB] = await Promise.all([
      startRedis(redisPort!).then((child) => track({ child, output: () => '' })),
      startProcess(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], /Demo app: .* wallet: \S+\n/, {
        cwd: ROOT,
        env: { ...process.env, SIMULATOR_PORT: String(simPort), SIMULATOR_SEED: '42' },
      }).then(track),
      replica(portA!),
      replica(portB!),
    ]);
    [a, b] = [replicaA, replicaB];
    probe = new Redis(redisUrl);
    const [, apiKey, appId, wallet] = /Demo app: X-Service-Api-Key: (\S+)\s+appId: (\S+)\s+wallet: (\S+)/.exec(sim.output())!;
    demo = { apiKey: apiKey!, appId: appId!, wallet: wallet! };

    const config = join(dir, 'haproxy.cfg');
    writeFileSync(config, haproxyConfig(lbPort!, [a.url, b.url]));
    const balancer = track(await startProcess('haproxy', ['-f', config, '-db'], null, { cwd: dir }));
    lb = `http://127.0.0.1:${lbPort}`;
    await untilReady(lb, balancer);
    await simulator('POST', '/__sim/reset');
  }, 90_000);

  afterAll(async () => {
    probe?.disconnect();
    await Promise.all(started.map(({ child }) => stopProcess(child)));
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  async function simulator(method: string, path: string): Promise<any> {
    return (await fetch(`${simUrl}${path}`, { method })).json();
  }

  async function gql(base: string, query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) };
  }

  it('sends once for one idempotency key, twice through the balancer and once to each replica', async () => {
    const send = (base: string) =>
      gql(
        base,
        'mutation ($input: SendNotificationInput!) { sendNotification(input: $input) { accepted recipientCount userErrors { code } } }',
        {
          input: {
            appId: demo.appId,
            channels: ['IN_APP'],
            title: 'Across replicas',
            body: 'One delivery, whichever replica answers.',
            recipient: { walletAddress: demo.wallet },
            idempotencyKey: 'cluster-key-1',
          },
        },
        { 'x-service-api-key': demo.apiKey },
      );
    const answers = [];
    for (const base of [lb, lb, a.url, b.url]) answers.push(await send(base));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.data.sendNotification).toEqual({ accepted: true, recipientCount: 1, userErrors: [] });
    }
    expect((await simulator('GET', '/__sim/requests'))[SEND_ROUTE]).toBe(1);
  });

  it('delivers a signed webhook received by one replica to an event stream on the other', async () => {
    const controller = new AbortController();
    const stream = await fetch(`${b.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { events { __typename eventId } }' }),
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    try {
      const next = firstEvent(stream.body!);
      await expect.poll(async () => ((await probe.pubsub('NUMSUB', EVENTS_TOPIC)) as [string, number])[1]).toBe(2);
      const raw = JSON.stringify({ events: [trending('cluster-event-1')] });
      const delivered = await fetch(`${a.url}/webhooks/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, raw) },
        body: raw,
      });
      expect(delivered.status).toBe(200);
      expect(await next).toEqual({ data: { events: { __typename: 'TrendingTokenEvent', eventId: 'cluster-event-1' } } });
    } finally {
      controller.abort();
    }
  });

  it('counts one caller on both replicas: N spread over them pass, the next is refused through the balancer', async () => {
    // A caller of its own address, as the rate limit counts anyone whose credentials are not verified.
    const caller = { authorization: `Bearer rate-${Date.now()}`, 'x-service-client-key': 'ck', 'x-forwarded-for': '192.0.2.200' };
    for (let i = 0; i < RATE_LIMIT; i++) {
      const answer = await gql(i % 2 === 0 ? a.url : b.url, '{ __typename }', {}, caller);
      expect(answer.status).toBe(200);
    }
    const refused = await gql(lb, '{ __typename }', {}, caller);
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions).toEqual({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    expect(refused.retryAfter).toBe(String(refused.body.errors[0].extensions.retryAfterSeconds));
  });

  // Last: it kills replica A.
  it('keeps answering through the balancer when a replica is killed mid-load; only requests in flight may fail', async () => {
    interface Outcome {
      ok: boolean;
      startedAt: number;
      endedAt: number;
    }
    const outcomes: Outcome[] = [];
    let stop = false;
    let n = 0;
    // Each request its own client address (believed from loopback), so the load never meets the rate limit.
    const worker = async () => {
      while (!stop) {
        const startedAt = performance.now();
        const ok = await gql(lb, '{ __typename }', {}, { 'x-forwarded-for': `198.51.100.${n++ % 250}`, authorization: `Bearer load-${n}` }).then(
          (answer) => answer.status === 200 && answer.body.data?.__typename === 'Query',
          () => false,
        );
        outcomes.push({ ok, startedAt, endedAt: performance.now() });
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await expect.poll(() => outcomes.filter((o) => o.ok).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(20);
    // A dies between the signal and its exit (the kernel closes its sockets, refusing what its
    // backlog held): a request that reached it in that window was in flight on the dying replica.
    const exited = once(a.process.child, 'exit');
    a.process.child.kill('SIGKILL');
    const killedAt = performance.now();
    await exited;
    const deadAt = performance.now();
    const before = outcomes.length;
    await expect.poll(() => outcomes.slice(before).filter((o) => o.ok).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(40);
    stop = true;
    await Promise.all(workers);

    const inFlightAtKill = outcomes.filter((o) => o.startedAt < deadAt && o.endedAt > killedAt);
    const failed = outcomes.filter((o) => !o.ok);
    // Every failure was a request running while A died; every request started after that succeeded.
    expect(failed.filter((o) => !inFlightAtKill.includes(o))).toEqual([]);
    const afterDeath = outcomes.filter((o) => o.startedAt > deadAt);
    expect(afterDeath.length).toBeGreaterThan(0);
    expect(afterDeath.filter((o) => !o.ok)).toEqual([]);
    // B still answers directly and through the balancer.
    expect((await gql(lb, '{ __typename }', {}, { authorization: 'Bearer after' })).status).toBe(200);
  });
});
