/** The throughput comparison's console lines and its section of bench/RESULTS.md. */
import { cpus } from 'node:os';
import { containerHeapFlag, PRODUCTION_COMMAND } from './servers.js';
import { COLD_USERS, MANY_USERS, type ScreenName } from './screens.js';
import { RIG_CORE, SERVER_CORE, SERVER_LEGEND, WARM_UP_PER_CONNECTION, type ServerKind, type ThroughputOptions, type ThroughputRow } from './types.js';

const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const mib = (bytes: number) => `${fixed(bytes / (1024 * 1024), 0)} MiB`;
const upstreamText = (u: Record<string, number>) =>
  Object.entries(u)
    .filter(([, n]) => n > 0.005)
    .map(([s, n]) => `${s} ${fixed(n, 2)}`)
    .join(' · ') || '0';

export function consoleLine(r: ThroughputRow): string {
  return (
    `  ${r.screen.padEnd(7)} ${String(r.latencyMs).padStart(2)} ms round ${r.round} ${r.phase} ${r.server.padEnd(8)} ` +
    `${fixed(r.rps, 0).padStart(6)} req/s  p50 ${fixed(r.p50, 0)} ms  p99 ${fixed(r.p99, 0)} ms  CPU ${fixed(r.cpuMsPerRequest, 2)} ms/req  ` +
    `upstream/req ${upstreamText(r.upstream)}  peak RSS ${mib(r.peakRssBytes)}  ` +
    `${r.server === 'gateway' ? `executions/key/TTL ${r.executionsPerKeyWindow === null ? 'n/a' : fixed(r.executionsPerKeyWindow, 2)}  ` : ''}(${r.requests} req, ${r.non2xx} non-2xx, ${r.graphqlErrors} with errors, ${r.failures} failed)`
  );
}

export interface ReportContext {
  options: ThroughputOptions;
  pinned: boolean;
  loadBefore: string;
  loadAfter: string;
  seconds: number;
  /** Other work competed for the cores (load average above the core count). */
  busy: boolean;
  wallet: { address: string; positions: number };
  notes: string[];
}

export const THROUGHPUT_HEADING = '## Throughput: gateway vs hand-written baseline vs bare server';

export function throughputMarkdown(rows: readonly ThroughputRow[], ctx: ReportContext): string {
  // One line per screen, latency, phase and server: each figure the median of its rounds.
  const groups = new Map<string, ThroughputRow[]>();
  for (const r of rows) {
    const key = `${r.screen}|${r.server === 'bare' ? '' : r.latencyMs}|${r.phase}|${r.server}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const roundOf = (r: ThroughputRow, server: ServerKind) =>
    rows.find((b) => b.server === server && b.screen === r.screen && b.latencyMs === r.latencyMs && b.phase === r.phase && b.round === r.round);
  /** A ratio's median over the rounds' pairs (each round's gateway against that round's baseline), with its range. */
  const pairs = (group: readonly ThroughputRow[], figure: (r: ThroughputRow) => number) => {
    const ratios = group.flatMap((r) => {
      const base = roundOf(r, 'baseline');
      return base ? [figure(r) / figure(base)] : [];
    });
    if (ratios.length === 0) return null;
    const range = ratios.length > 1 ? ` (${fixed(Math.min(...ratios), 2)}–${fixed(Math.max(...ratios), 2)})` : '';
    return `${fixed(median(ratios), 2)}×${range}`;
  };
  const bareRps = (screen: ScreenName) => {
    const bare = rows.filter((b) => b.server === 'bare' && b.screen === screen).map((b) => b.rps);
    return bare.length > 0 ? median(bare) : null;
  };
  const versus = (group: readonly ThroughputRow[], rps: number): string => {
    const r = group[0]!;
    if (r.server === 'bare') return 'ceiling';
    const parts: string[] = [];
    if (r.server.startsWith('gateway')) {
      const [req, cpu, rss] = [pairs(group, (x) => x.rps), pairs(group, (x) => x.cpuMsPerRequest), pairs(group, (x) => x.peakRssBytes)];
      if (req && cpu && rss) parts.push(`${req} req/s, ${cpu} CPU, ${rss} peak RSS`);
    }
    const bare = bareRps(r.screen);
    if (bare && r.phase === 'warm') parts.push(`${fixed((100 * rps) / bare, 0)} % of bare`);
    return parts.join('; ');
  };
  const cpu = cpus();
  const lines = [
    THROUGHPUT_HEADING,
    '',
    `- Date: ${new Date().toISOString()}; run time ${ctx.seconds} s`,
    `- Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, Node ${process.version}; load average (1 / 5 / 15 min) ${ctx.loadBefore} before, ${ctx.loadAfter} after`,
    `- Each server in its own process (${ctx.pinned ? `\`taskset -c ${SERVER_CORE}\`` : 'not pinned'}): the gateway as built and started in production (\`${PRODUCTION_COMMAND}\`, NODE_ENV=production, \`${containerHeapFlag()}\`: the heap Node gives it in deploy/k8s/deployment.yaml's memory limit` +
      `${process.env['MAX_QUERY_COST'] ? `, MAX_QUERY_COST=${process.env['MAX_QUERY_COST']}` : ', MAX_QUERY_COST unset'}` +
      `, RATE_LIMIT_PER_MINUTE=${process.env['RATE_LIMIT_PER_MINUTE'] ?? '0'}: one load generator is one caller), the hand-written baseline ` +
      '(bench/throughput/baseline/, with the gateway\'s Node flags and heap), a bare node server returning the baseline\'s answer as a fixed body.',
    `- Upstreams: the simulator standalone (\`node --import tsx src/simulator/main.ts\`, seed 42: the image ships no simulator) ${ctx.pinned ? `on core ${RIG_CORE} with the load generator` : ''}; latency set per run through \`/__sim/latency\` (every call, no jitter).`,
    `- Load: autocannon, ${ctx.options.connections} connections. **cold** = the first ${ctx.options.coldRequests} requests of a fresh process (empty caches, unwarmed JIT); ` +
      `**warm** = then ${WARM_UP_PER_CONNECTION * ctx.options.connections} requests unmeasured, then as many requests as their rate makes in ${ctx.options.warmSeconds} s (at least ${2 * ctx.options.connections}), on the same process. ` +
      'Every window is a fixed number of requests, all answered inside it; the server is left to go idle before each.',
    `- Rounds: ${ctx.options.rounds} of each screen and latency, the screen's servers in turn, a fresh process each; the bare server ${ctx.options.rounds} times per screen at the end. ` +
      'Each figure below is the median of its rounds (Requests, non-2xx and errors: their sum); each ratio to the baseline is the median of the rounds\' pairs (each round\'s server against the same round\'s baseline), its range in brackets; the share of bare is the median req/s over the bare server\'s median.',
    `- Screens: **mobile** = \`MobileHome\` rotating 100 subscribers' tokens; **mobile1000** = the same over ${MANY_USERS} distinct subscribers (most requests miss the response cache); ` +
      `**mobile-cold** = the same, each request of a process a different one of ${COLD_USERS} subscribers (no user repeats within a process; 220 of the simulator's wallets hold positions, the rest none), gateway-cold against the baseline; ` +
      `every signed-in request takes the next user of one rotation, so no two connections send the same user's request at once; **wallet** = 50 positions with markets, providers and token assets of ${ctx.wallet.address} ` +
      `(the simulator's largest wallet: ${ctx.wallet.positions} positions, so the page holds ${ctx.wallet.positions}); **markets** = a page of 100 markets selecting every kind's fields and token assets (bench/throughput/screens.ts).`,
    ...(ctx.busy ? [`- **The machine was shared** with other work during this run (load average above its ${cpu.length} cores): absolute figures are low and noisy; compare rows of the same run.`] : []),
    '- CPU ms/req: the server process\'s utime + stime (/proc/<pid>/stat) over the window ÷ requests answered. Upstream calls/req: the simulator\'s counters over the window ÷ requests. Peak RSS: VmHWM of the process at the end of the window.',
    '',
    ...Object.entries(SERVER_LEGEND).map(([kind, text]) => `- **${kind}** = ${text}.`),
    '- **Executions/key/TTL** = growth of the gateway\'s `gateway_executions_total{shared="false"}` over the window ÷ (distinct cache keys × TTL windows the window spans; the private TTL for signed-in screens, else the public data\'s shortest); 1.00 = each key executed once per window, more = a stampede; n/a when the gateway does not count executions.',
    '',
    '| Screen | Upstream latency | Phase | Server | req/s | p50 | p99 | CPU ms/req | Upstream calls/req | Peak RSS | Executions/key/TTL | Requests | non-2xx | with GraphQL errors | vs baseline |',
    '|---|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const group of groups.values()) {
    const r = group[0]!;
    const of = (figure: (x: ThroughputRow) => number) => median(group.map(figure));
    const sum = (figure: (x: ThroughputRow) => number) => group.reduce((total, x) => total + figure(x), 0);
    const rps = of((x) => x.rps);
    const executions = group.map((x) => x.executionsPerKeyWindow).filter((x): x is number => x !== null);
    const upstream = Object.fromEntries(Object.keys(r.upstream).map((service) => [service, of((x) => x.upstream[service] ?? 0)]));
    lines.push(
      `| ${r.screen} | ${r.server === 'bare' ? '–' : `${r.latencyMs} ms`} | ${r.server === 'bare' ? '–' : r.phase} | ${r.server} | ${fixed(rps, 0)} | ${fixed(of((x) => x.p50), 0)} ms | ${fixed(of((x) => x.p99), 0)} ms | ` +
        `${fixed(of((x) => x.cpuMsPerRequest), 2)} | ${upstreamText(upstream)} | ${mib(of((x) => x.peakRssBytes))} | ${r.server === 'gateway' ? (executions.length === 0 ? 'n/a' : fixed(median(executions), 2)) : '–'} | ` +
        `${sum((x) => x.requests)} | ${sum((x) => x.non2xx)} | ${sum((x) => x.graphqlErrors)} | ${versus(group, rps)} |`,
    );
  }
  const warm = rows.filter((r) => r.phase === 'warm' && r.server !== 'bare');
  if (ctx.options.rounds > 1 && warm.length > 0) {
    const rounds = Array.from({ length: ctx.options.rounds }, (_, i) => i + 1);
    lines.push(
      '',
      '### Warm windows, round by round',
      '',
      'req/s (CPU ms/req) of each round\'s warm window; the servers of one round ran one after the other.',
      '',
      `| Screen | Upstream latency | Server | ${rounds.map((n) => `Round ${n}`).join(' | ')} |`,
      `|---|---:|---|${rounds.map(() => '---:').join('|')}|`,
    );
    for (const group of groups.values()) {
      const r = group[0]!;
      if (r.phase !== 'warm' || r.server === 'bare') continue;
      const cells = rounds.map((n) => {
        const x = group.find((g) => g.round === n);
        return x ? `${fixed(x.rps, 0)} (${fixed(x.cpuMsPerRequest, 2)})` : '–';
      });
      lines.push(`| ${r.screen} | ${r.latencyMs} ms | ${r.server} | ${cells.join(' | ')} |`);
    }
  }
  lines.push('', ...ctx.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
