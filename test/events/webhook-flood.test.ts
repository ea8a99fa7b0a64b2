import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startGatewayProcess, startProcess, stopProcess, untilGatewayReady, type StartedProcess } from '../helpers/processes.js';

/**
 * 200 signed batches of 1 MB posted at once over loopback (by a process of its own) to a gateway in a
 * process of its own, while this process asks `/health` every 10 ms. What is bounded is what a
 * liveness probe depends on and the process measures itself: its event loop's longest delay
 * (`nodejs_eventloop_lag_max_seconds` on `/metrics`, the maximum since the previous scrape), far
 * under a probe's usual 3 s timeout. A probe's round trip is not timed: on two shared cores it
 * measures the other processes (it took 130 ms here with the gateway idle between two slices of work).
 * The work's own longest slice is bounded in CPU time by test/events/webhook-stalls.test.ts.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'flood-secret';
/** Longest event-loop delay allowed during the flood: a liveness probe with a 3 s timeout still passes. */
const MAX_LOOP_DELAY_S = 2;

describe('a flood of large webhook batches', () => {
  let sim: Simulator;
  let gateway: StartedProcess;
  let url: string;
  const loopDelay = async () => {
    const metrics = await (await fetch(`${url}/metrics`)).text();
    return Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(metrics)?.[1]);
  };

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    ({ url, process: gateway } = await startGatewayProcess(sim.urls, { WEBHOOK_SECRET: SECRET }));
    await untilGatewayReady(url);
  }, 60_000);

  afterAll(async () => {
    await stopProcess(gateway?.child);
    await sim?.close();
  });

  it('answers every /health with 200, keeps its event loop responsive and acknowledges every batch', async () => {
    await loopDelay(); // the maximum starts afresh from this scrape
    const load = await startProcess(process.execPath, ['--import', 'tsx', 'test/events/fixtures/flood.ts', url, SECRET], /sending/, { cwd: ROOT });
    const statuses = new Set<number>();
    const delays: number[] = [];
    let probes = 0;
    while (load.child.exitCode === null) {
      statuses.add(await fetch(`${url}/health`).then(async (r) => (await r.arrayBuffer(), r.status)));
      if (++probes % 20 === 0) delays.push(await loopDelay());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    delays.push(await loopDelay());
    const acknowledged = JSON.parse(/STATUSES (.*)/.exec(load.output())?.[1] ?? 'null') as number[] | null;
    expect(acknowledged, load.output()).toHaveLength(200);
    expect(acknowledged!.filter((status) => status !== 200)).toEqual([]);
    expect(probes).toBeGreaterThan(20);
    expect([...statuses]).toEqual([200]);
    expect(delays.every(Number.isFinite)).toBe(true);
    expect(Math.max(...delays)).toBeLessThan(MAX_LOOP_DELAY_S);
  }, 120_000);
});
