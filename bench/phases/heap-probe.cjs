// Preloaded by start-heap.ts (with --expose-gc): on SIGHUP, four full collections, then the heap's figures in MB
// appended as one JSON line to /tmp/heap-probe-<pid>.jsonl.
const v8 = require('node:v8');
const fs = require('node:fs');

const MB = (bytes) => +(bytes / 1048576).toFixed(2);
process.on('SIGHUP', async () => {
  for (let i = 0; i < 4; i++) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const heap = v8.getHeapStatistics();
  const code = v8.getHeapCodeStatistics();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().filter((s) => s.space_used_size > 0).map((s) => [s.space_name, MB(s.space_used_size)]));
  const line = { used: MB(heap.used_heap_size), rss: MB(process.memoryUsage().rss), code: MB(code.code_and_metadata_size), bytecode: MB(code.bytecode_and_metadata_size), scriptSource: MB(code.external_script_source_size), nodeUndici: process.moduleLoadList.includes('NativeModule internal/deps/undici/undici'), spaces };
  const dir = process.env.HEAP_PROBE_SNAPSHOT;
  if (dir) line.snapshot = v8.writeHeapSnapshot(`${dir}/${process.pid}-${Date.now()}.heapsnapshot`);
  fs.appendFileSync(`/tmp/heap-probe-${process.pid}.jsonl`, `${JSON.stringify(line)}\n`);
});
