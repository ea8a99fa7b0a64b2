import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release } from 'node:os';
import { ms, UPSTREAM_LATENCY } from './harness.js';
import type { Row, ScenarioResult } from './scenarios/types.js';

/** One console line per row, as it is measured. */
export function line(row: Row): string {
  const rps = row.rps === null ? '' : `  ${row.rps} req/s`;
  const latency = Number.isNaN(row.p50) ? '' : `  p50 ${ms(row.p50)}  p95 ${ms(row.p95)}`;
  return `  ${row.scenario}: ${row.requests} req${latency}${rps}  upstream/req: ${row.upstream}  (${row.notes})`;
}

export function table(results: readonly ScenarioResult[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    '| Scenario | Requests | p50 | p95 | req/s | Upstream calls per request | Notes |',
    '|---|---:|---:|---:|---:|---|---|',
  ];
  for (const row of results.flatMap((r) => r.rows)) {
    const latency = (v: number) => (Number.isNaN(v) ? '–' : ms(v));
    lines.push(
      `| ${cell(row.scenario)} | ${row.requests} | ${latency(row.p50)} | ${latency(row.p95)} | ${row.rps ?? '–'} | ${cell(row.upstream)} | ${cell(row.notes)} |`,
    );
  }
  return lines.join('\n');
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${platform()} ${release()}, Node ${process.version}`;
}

export function loadAverage(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' / ');
}

/** Other work competing for the cores makes every latency here noisy. */
export function busy(): boolean {
  return (loadavg()[0] ?? 0) > cpus().length;
}

export function markdown(results: readonly ScenarioResult[], totalMs: number, loadBefore: string, warmUp: string): string {
  const checks = results.flatMap((r) => r.checks);
  const failed = checks.filter((c) => !c.ok);
  return [
    '# Benchmark results',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machine()}`,
    `- Upstream latency (simulated, every call): ${UPSTREAM_LATENCY.fixedMs} ms + up to ${UPSTREAM_LATENCY.jitterMs} ms jitter`,
    `- Load average before the run (1 / 5 / 15 min): ${loadBefore}`,
    `- Run time: ${Math.round(totalMs / 1000)} s. Load generator, gateway and simulator share one process (see README).`,
    '',
    table(results),
    '',
    `- ${warmUp}`,
    ...results.flatMap((r) => r.facts.map((f) => `- ${f}`)),
    '',
    '## Budget checks',
    '',
    ...checks.map((c) => `- ${c.ok ? 'ok' : '**FAILED**'}: ${c.what} (${c.detail})`),
    '',
    failed.length === 0 ? 'Every budget held.' : `${failed.length} budget(s) failed: see above.`,
    '',
  ].join('\n');
}

export function writeResults(path: URL, content: string): void {
  writeFileSync(path, content);
}

export function readResults(path: URL): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmark results\n';
}

/** `document` with the section under `heading` (up to the next `## ` heading) replaced by `section`, or `section` appended. */
export function replaceSection(document: string, heading: string, section: string): string {
  const start = document.indexOf(`${heading}\n`);
  const body = section.endsWith('\n') ? section : `${section}\n`;
  if (start < 0) return `${document.replace(/\n*$/, '\n\n')}${body}`;
  const next = document.indexOf('\n## ', start + heading.length);
  return `${document.slice(0, start)}${body}${next < 0 ? '' : document.slice(next + 1)}`;
}
