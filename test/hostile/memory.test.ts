import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * The memory script's scenarios in a child process under a small heap (a 512 MiB pod's is larger):
 * where memory is not bounded, the child dies of `JavaScript heap out of memory`.
 */
const ROOT = new URL('../../', import.meta.url).pathname;
const MiB = 1024 * 1024;

async function scenario(args: string[], heapMiB: number): Promise<{ retainedBytes: number; output: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', `--max-old-space-size=${heapMiB}`, '--import', 'tsx', 'test/hostile/memory-scenarios.ts', ...args],
    { cwd: ROOT, timeout: 240_000, maxBuffer: 4 * MiB },
  );
  const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
  expect(line, stdout).toBeDefined();
  return { retainedBytes: (JSON.parse(line!.slice(7)) as { retainedBytes: number }).retainedBytes, output: stdout };
}

describe('memory under hostile documents (child processes under a small heap)', () => {
  it('keeps no APQ registration the document limits refuse: 300 distinct 1.9 MB documents, then 5,000 small ones', async () => {
    const { retainedBytes, output } = await scenario(['apq'], 128);
    expect(output).toContain('300 registrations of 1.9 MB documents: 300 × 413');
    expect(output).toContain('5,000 of small ones: 5000 × 200');
    // The README's ceiling for the document caches (APQ store within it).
    expect(retainedBytes).toBeLessThan(96 * MiB);
  }, 240_000);

  it('retains no more heap after 20,000 distinct documents (some invalid, some run twice) than the README states', async () => {
    const { retainedBytes, output } = await scenario(['documents', '20000'], 160);
    expect(output).toMatch(/21000 × 200/);
    expect(retainedBytes).toBeLessThan(96 * MiB);
  }, 240_000);
});
