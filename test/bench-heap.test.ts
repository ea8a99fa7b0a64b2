import { execFileSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerHeapFlag, deploymentMemoryLimit } from '../bench/throughput/servers.js';

/** The bench gives every server the heap Node gives the gateway in its deployment's container, so its memory figures are production's. */

const limitMiB = Number(/^(\d+)Mi$/.exec(deploymentMemoryLimit())![1]);
const heapLimit = (flags: string[], cgroup?: string) =>
  Number(
    execFileSync('sh', ['-c', `${cgroup ? `echo $$ > ${cgroup}/cgroup.procs && ` : ''}exec "$0" "$@"`, process.execPath, ...flags, '-p', 'require("node:v8").getHeapStatistics().heap_size_limit'], {
      encoding: 'utf8',
    }),
  );

// A memory cgroup (v1) this process may create: root on a machine that mounts the controller.
const CGROUPS = '/sys/fs/cgroup/memory';
const canLimit = (() => {
  try {
    accessSync(CGROUPS, constants.W_OK);
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
})();

describe('the bench heap', () => {
  it('is read from the deployment: half its memory limit for the old generation, never under 256 MiB', () => {
    expect(deploymentMemoryLimit()).toBe('512Mi');
    expect(containerHeapFlag()).toBe('--max-old-space-size=256');
    expect(containerHeapFlag('2048Mi')).toBe('--max-old-space-size=1024');
    expect(containerHeapFlag('300Mi')).toBe('--max-old-space-size=256');
    expect(() => containerHeapFlag('none')).toThrow(/memory limit in Mi/);
  });

  it.skipIf(!canLimit)('is the heap Node sizes for itself inside a container of that limit', () => {
    const cgroup = join(CGROUPS, `gateway-bench-${process.pid}`);
    mkdirSync(cgroup);
    try {
      writeFileSync(join(cgroup, 'memory.limit_in_bytes'), String(limitMiB * 1024 * 1024));
      const inContainer = heapLimit(['--max-semi-space-size=32'], cgroup);
      expect(heapLimit(['--max-semi-space-size=32', containerHeapFlag()])).toBe(inContainer);
      // The machine's own memory gives a larger heap: the flag is what makes the bench production's.
      expect(heapLimit(['--max-semi-space-size=32'])).toBeGreaterThan(inContainer);
    } finally {
      rmdirSync(cgroup);
    }
  });
});
