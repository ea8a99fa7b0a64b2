import { afterEach, describe, expect, it, vi } from 'vitest';
import { heldBytes } from '../../src/held.js';
import { GatewayRequest } from '../../src/node-http.js';
import { useTestGateway } from '../helpers/gateway.js';
import { useTwinServers, type Answer, type Sent } from '../helpers/twin-servers.js';

/**
 * A body the direct path planned before is answered from its bytes (src/direct/path.ts `fromBytes`):
 * nothing reads (parses) the body again, every caller still gets its own answer, the pipeline's, and a
 * request the direct path leaves to the pipeline still reaches Yoga with its body.
 */
const VIEWER = '{ viewer { id channels { key value verified } } }';

function expectSame(viaPipeline: Answer, viaDirect: Answer) {
  expect(viaDirect.head).toBe(viaPipeline.head);
  expect(viaDirect.body.toString('latin1')).toBe(viaPipeline.body.toString('latin1'));
}

describe('the direct path, bodies it planned before', () => {
  const gw = useTestGateway();
  const twins = useTwinServers(gw);
  const reads = () => vi.spyOn(GatewayRequest.prototype, 'body', 'get');
  afterEach(() => vi.restoreAllMocks());
  const callers = () =>
    [...gw.sim.alerts.subscribers.values()].slice(0, 3).map((s) => ({ authorization: `Bearer ${s.token}`, 'x-service-client-key': gw.sim.alerts.demo.clientKey }));

  it('answers the same bytes for each caller without reading the body again, as the pipeline does', async () => {
    const [first, ...others] = callers();
    const warm: Sent = { query: VIEWER, headers: first! };
    for (let i = 0; i < 2; i++) await twins.pipeline(warm);
    await twins.direct(warm);
    const read = reads();
    const before = twins.counts.direct;
    const viewers = new Set<string>();
    for (const headers of others) {
      const sent = { query: VIEWER, headers };
      const viaPipeline = await twins.pipeline(sent);
      const readByPipeline = read.mock.calls.length;
      const viaDirect = await twins.direct(sent);
      expect(read.mock.calls.length).toBe(readByPipeline);
      expect(viaDirect.status).toBe(200);
      expectSame(viaPipeline, viaDirect);
      viewers.add(JSON.parse(viaDirect.body.toString()).data.viewer.id);
    }
    expect(twins.counts.direct - before).toBe(others.length);
    expect(viewers.size).toBe(others.length);
  });

  it('hands a known body with a header it leaves to the pipeline to Yoga, which reads the body', async () => {
    const sent: Sent = { query: VIEWER, headers: { ...callers()[0]!, 'x-request-timeout-ms': 'soon' } };
    await twins.direct({ query: VIEWER, headers: callers()[0]! });
    const yogaBefore = twins.counts.yogaBehindDirect;
    const before = twins.counts.direct;
    const viaPipeline = await twins.pipeline(sent);
    const viaDirect = await twins.direct(sent);
    expect(viaDirect.status).toBe(400);
    expectSame(viaPipeline, viaDirect);
    expect(twins.counts.direct).toBe(before);
    expect(twins.counts.yogaBehindDirect - yogaBefore).toBe(1);
  });

  it('bounds the bodies it remembers, and reports them as held', async () => {
    for (let first = 1; first <= 70; first++) await twins.direct({ query: VIEWER, variables: { first }, headers: callers()[0]! });
    const held = heldBytes().get('direct_bodies');
    expect(held!.bytes).toBeGreaterThan(0);
    expect(held!.bytes).toBeLessThanOrEqual(held!.maxBytes);
    // Fewer remembered than were sent: 70 small bodies stay far under the byte bound, so it alone shows nothing.
    expect(held!.bytes).toBeLessThan(64 * 512);
  });
});
