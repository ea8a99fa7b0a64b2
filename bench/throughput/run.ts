/**
 * The throughput mode of `npm run bench`: the built gateway against a hand-written baseline and a bare
 * server, each in its own process pinned to one core, in front of the standalone simulator, under
 * autocannon at 50 connections. See bench/README.md ("Throughput").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setLatency } from './fixtures.js';
import { measure } from './measure.js';
import { canPin, pin } from './processes.js';
import { startRig } from './rig.js';
import { consoleLine, throughputMarkdown } from './report.js';
import { COLD_USERS, screens, type ScreenName } from './screens.js';
import { coldAndWarm, ROOT, startTarget } from './servers.js';
import { RIG_CORE, SERVER_CORE, THROUGHPUT_DEFAULTS, WARM_UP_PER_CONNECTION, type ThroughputOptions, type ThroughputRow } from './types.js';

export { THROUGHPUT_DEFAULTS } from './types.js';
export { THROUGHPUT_HEADING } from './report.js';

/** Subscribers the simulator is started with: the cold per-user screen's rotation, the others use its first ones. */
const SUBSCRIBERS = COLD_USERS;

export interface ThroughputRun {
  rows: ThroughputRow[];
  markdown: string;
}

export async function runThroughput(given: ThroughputOptions = THROUGHPUT_DEFAULTS): Promise<ThroughputRun> {
  const rounds = Math.floor(Number(process.env['BENCH_ROUNDS'] ?? given.rounds));
  const options: ThroughputOptions = { ...given, rounds: Number.isFinite(rounds) && rounds >= 1 ? rounds : given.rounds };
  const started = Date.now();
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' / ');
  const loadBefore1 = loadavg()[0] ?? 0;
  if (options.build) {
    console.log('Building the gateway (npm run build) ...');
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  }
  const pinned = canPin();
  // This process is the load generator: it shares a core with the simulator, the measured server has the other.
  if (pinned) pin(process.pid, RIG_CORE);

  const { sim, rig } = await startRig(pinned, SUBSCRIBERS);
  const { simUrl, fixtures } = rig;
  const rows: ThroughputRow[] = [];
  const notes: string[] = [];
  const tmp = mkdtempSync(join(tmpdir(), 'bench-bare-'));
  try {
    const only = (process.env['BENCH_SCREENS'] ?? '').split(',').map((s) => s.trim()).filter(Boolean);
    const all = screens(fixtures.wallet.address).filter((s) => only.length === 0 || only.includes(s.name));
    const log = (row: ThroughputRow) => console.log(consoleLine(row));
    console.log(
      `Throughput: ${options.connections} connections, cold = first ${options.coldRequests} requests of a fresh process, warm = ${WARM_UP_PER_CONNECTION * options.connections} requests unmeasured then ≈ ${options.warmSeconds} s of requests; ` +
        `servers ${pinned ? `pinned to core ${SERVER_CORE}, simulator and load generator to core ${RIG_CORE}` : 'NOT pinned (no taskset or one core)'}.`,
    );
    console.log(`Wallet screen: ${fixtures.wallet.address} (${fixtures.wallet.positions} positions, the simulator's largest wallet).\n`);

    const bodies = new Map<ScreenName, string>();
    const latencies = process.env['BENCH_LATENCIES'] ? process.env['BENCH_LATENCIES'].split(',').map(Number).filter((n) => Number.isFinite(n) && n >= 0) : options.latencies;
    for (const latencyMs of latencies) {
      await setLatency(simUrl, latencyMs);
      for (const screen of all) {
        for (let round = 1; round <= options.rounds; round++) {
          for (const kind of screen.servers) {
            const run = await coldAndWarm(rig, kind, screen, latencyMs, round, options, log);
            rows.push(...run.rows);
            if (kind === 'baseline' && run.body && !bodies.has(screen.name)) bodies.set(screen.name, run.body);
          }
        }
      }
    }
    // The ceiling: the same bytes as the baseline's answer, from a server that does nothing else.
    await setLatency(simUrl, 0);
    for (const screen of all) {
      const body = bodies.get(screen.name) ?? '{}';
      const file = join(tmp, `${screen.name}.json`);
      writeFileSync(file, body);
      for (let round = 1; round <= options.rounds; round++) {
        const target = await startTarget(rig, 'bare', file);
        try {
          const warm = await measure(rig, target, screen, 0, 'warm', round, options);
          log(warm.row);
          rows.push(warm.row);
        } finally {
          await target.proc.stop();
        }
      }
      notes.push(`Bare server body for ${screen.name}: ${Buffer.byteLength(body)} bytes (the baseline's answer).`);
    }
    for (const row of rows) {
      if (row.firstError) notes.push(`First error, ${row.server} ${row.screen} ${row.phase} at ${row.latencyMs} ms: \`${row.firstError.replace(/`/g, "'").slice(0, 240)}\``);
    }
    const markdown = throughputMarkdown(rows, {
      options,
      pinned,
      loadBefore,
      loadAfter: loadavg().map((l) => l.toFixed(2)).join(' / '),
      seconds: Math.round((Date.now() - started) / 1000),
      busy: Math.max(loadBefore1, loadavg()[0] ?? 0) > cpus().length,
      wallet: fixtures.wallet,
      notes,
    });
    return { rows, markdown };
  } finally {
    await sim.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
