import { describe, expect, it, vi } from 'vitest';
import { operation, useTestGateway } from './helpers/gateway.js';
import { useTwinServers } from './helpers/twin-servers.js';

/**
 * A signed-in request's credentials are hashed once, however many keys name its caller (the collapse
 * of identical executions, the identity lookup, the alerts client's shared reads): the hash is the
 * request's credentials' own, made when first asked for.
 */
const hashed = vi.hoisted(() => ({ texts: [] as string[] }));
vi.mock('../src/hashing.js', async (original) => {
  const real = await original<typeof import('../src/hashing.js')>();
  return {
    ...real,
    sha256: (data: string | Buffer, encoding?: 'hex' | 'base64url') => {
      hashed.texts.push(String(data));
      return real.sha256(data, encoding);
    },
  };
});

const MOBILE_HOME = operation('MobileHome');

describe("a signed-in request's credentials", () => {
  // The defaults of the test gateway: response cache off, identity asked every time, positions not shared.
  const gw = useTestGateway();
  const twins = useTwinServers(gw);
  const hashesOfToken = () => hashed.texts.filter((text) => text.includes(gw.sim.alerts.demo.token)).length;

  it('are hashed once by a request the pipeline answers, and once by one the direct path answers', async () => {
    const sent = { query: MOBILE_HOME, headers: gw.viewerHeaders };
    for (let i = 0; i < 2; i++) expect((await twins.pipeline(sent)).status).toBe(200);

    hashed.texts.length = 0;
    const viaPipeline = await gw.execute(MOBILE_HOME, {}, gw.viewerHeaders);
    expect(viaPipeline.errors).toBeUndefined();
    expect(viaPipeline.data!['viewer'].walletAddress).toBe(gw.sim.alerts.demo.walletAddress);
    expect(hashesOfToken()).toBe(1);

    hashed.texts.length = 0;
    const before = twins.counts.direct;
    const viaDirect = await twins.direct(sent);
    expect(twins.counts.direct - before).toBe(1);
    expect(JSON.parse(viaDirect.body.toString()).errors).toBeUndefined();
    expect(hashesOfToken()).toBe(1);
  });
});
