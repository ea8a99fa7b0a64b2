import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startGatewayProcess, startProcess, stopProcess, untilGatewayReady, type StartedProcess } from '../helpers/processes.js';

/**
 * 200 signed batches of 1 MB posted at once over loopback (by a process of its own) to a gateway in a
 * process of its own, while this process asks `/health` every 10 ms.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const SECRET = 'flood-secret';

describe('a flood of large webhook batches', () => {
  let sim: Simulator;
  let gateway: StartedProcess;
  let url: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    ({ url, process: gateway } = await startGatewayProcess(sim.urls, { WEBHOOK_SECRET: SECRET }));
    await untilGatewayReady(url);
  }, 60_000);

  afterAll(async () => {
    await stopProcess(gateway?.child);
    await sim?.close();
  });

  it('keeps /health under 100 ms and acknowledges every batch', async () => {
    const load = await startProcess(process.execPath, ['--import', 'tsx', 'test/events/fixtures/flood.ts', url, SECRET], /sending/, { cwd: ROOT });
    const healthTimes: number[] = [];
    while (load.child.exitCode === null) {
      const startedAt = performance.now();
      const status = await fetch(`${url}/health`).then(async (r) => (await r.arrayBuffer(), r.status));
      expect(status).toBe(200);
      healthTimes.push(performance.now() - startedAt);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const statuses = JSON.parse(/STATUSES (.*)/.exec(load.output())?.[1] ?? 'null') as number[] | null;
    expect(statuses, load.output()).toHaveLength(200);
    expect(statuses!.filter((status) => status !== 200)).toEqual([]);
    expect(healthTimes.length).toBeGreaterThan(20);
    expect(Math.max(...healthTimes)).toBeLessThan(100);
  }, 120_000);
});
