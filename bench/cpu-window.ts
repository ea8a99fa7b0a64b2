import { writeFileSync } from 'node:fs';

/**
 * Runs the measured loop and returns this process's CPU and wall time over it. The window's bounds go
 * to /tmp/profile-markets-window.json, so `profile-summary.ts` keeps only the samples inside it.
 */
export async function measureWindow(loop: () => Promise<void>): Promise<{ cpuMs: number; wallMs: number }> {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  await loop();
  const cpu = process.cpuUsage(cpu0);
  const t1 = process.hrtime.bigint();
  writeFileSync('/tmp/profile-markets-window.json', JSON.stringify({ startUs: Number(t0 / 1000n), endUs: Number(t1 / 1000n) }));
  return { cpuMs: (cpu.user + cpu.system) / 1000, wallMs: Number(t1 - t0) / 1e6 };
}
