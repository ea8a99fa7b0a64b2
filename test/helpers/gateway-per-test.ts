import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './gateway.js';

export interface GatewayPerTest {
  /** The file's simulator, a stand-in that reaches the started one (read it inside hooks and tests only). */
  sim: Simulator;
  /** A gateway of the test's own configuration on that simulator, closed after the test. */
  start: (options?: Omit<TestGatewayOptions, 'sim' | 'simulator'>) => Promise<TestGateway>;
}

/**
 * One simulator for the enclosing file or `describe` block and a gateway per test on it, for tests that
 * each want their own configuration (the response cache's). After each test the simulator's controls
 * (faults, latencies, counts) and its alerts state are reset and the test's gateways closed.
 */
export function useGatewayPerTest(): GatewayPerTest {
  let sim: Simulator | undefined;
  const open: TestGateway[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(() => sim?.close());
  afterEach(async () => {
    sim!.controls.reset();
    sim!.alerts.reset();
    for (const gw of open.splice(0)) await gw.close();
  });
  return {
    sim: new Proxy({} as Simulator, {
      get(_target, key) {
        if (!sim) throw new Error('the simulator starts in beforeAll: use it inside hooks and tests');
        return Reflect.get(sim, key) as unknown;
      },
    }),
    async start(options = {}) {
      const gw = await startTestGateway({ ...options, sim });
      open.push(gw);
      return gw;
    },
  };
}
