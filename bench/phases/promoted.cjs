/**
 * What survives scavenges, for bench/PHASES.md "What survives scavenges": preloaded into a server
 * (`node --require=bench/phases/promoted.cjs`, or `memory.ts ... --promoted`), it records every GC with
 * V8's GC profiler and, on SIGUSR2, writes `/tmp/promoted-<pid>.json`: per kind of GC their count and
 * milliseconds, the old space's growth across scavenges (the bytes they promoted) and between GCs
 * (what was allocated there directly), and the new space's survivors. CommonJS, so that it loads before
 * the server's own modules whatever their format.
 */
'use strict';
const { GCProfiler } = require('node:v8');
const { writeFileSync } = require('node:fs');

const MiB = (bytes) => +(bytes / 1048576).toFixed(1);
const used = (heap, space) => heap.heapSpaceStatistics.find((s) => s.spaceName === space)?.spaceUsedSize ?? 0;

const profiler = new GCProfiler();
profiler.start();

process.on('SIGUSR2', () => {
  const { statistics } = profiler.stop();
  const kinds = {};
  let between = 0;
  statistics.forEach((gc, i) => {
    const kind = (kinds[gc.gcType] ??= { count: 0, ms: 0, promotedMiB: 0, survivorsMiB: 0 });
    kind.count += 1;
    kind.ms += gc.cost / 1000;
    kind.promotedMiB += used(gc.afterGC, 'old_space') - used(gc.beforeGC, 'old_space');
    kind.survivorsMiB += used(gc.afterGC, 'new_space');
    if (i > 0) between += used(gc.beforeGC, 'old_space') - used(statistics[i - 1].afterGC, 'old_space');
  });
  for (const kind of Object.values(kinds)) {
    kind.ms = Math.round(kind.ms);
    kind.promotedMiB = MiB(kind.promotedMiB);
    // Average of what one GC of this kind left in the new space.
    kind.survivorsMiB = MiB(kind.survivorsMiB / kind.count);
  }
  writeFileSync(`/tmp/promoted-${process.pid}.json`, JSON.stringify({ kinds, allocatedInOldSpaceMiB: MiB(between) }));
  profiler.start();
});
