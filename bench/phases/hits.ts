/**
 * CPU per cached hit against the bare server sending the same bytes (issue 29's "cached hit" target),
 * alternated on one rig; a second gateway build may be measured beside them (before a change):
 *
 *   npm run build && node --import tsx bench/phases/hits.ts <mobile|markets> dist/server.js [old/server.js] [rounds] [requests]
 *
 * The gateway runs as the throughput bench's cached row does (`gateway`: production's command and
 * defaults, the response cache on), the bare server (bench/throughput/bare.ts) answers every request
 * with the gateway's answer to the screen. Each round starts each server afresh, warms it with 1,000
 * requests and measures `requests` (default 3,000) at 50 connections; the rounds rotate which goes first.
 * Prints each window, the medians and the median of each round's ratio to the bare server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { median } from '../numbers.js';
import { startPhaseRig } from './rig.js';
import { request } from 'undici';
import { requestFor, settle, type WindowState } from '../throughput/measure.js';
import { cpuMs } from '../throughput/processes.js';
import { startTarget } from '../throughput/servers.js';
import { type Target } from '../throughput/types.js';

const [screenName = 'markets', entryNew = 'dist/server.js', entryOld = '', roundsArg = '5', requestsArg = '3000'] = process.argv.slice(2);
const rounds = Number(roundsArg);
const requests = Number(requestsArg);

const { sim, rig, screenOf } = await startPhaseRig();
const screen = screenOf(screenName);

/** Runs `amount` requests of the screen against a started server; throws on any failed answer. */
async function load(target: Target, amount: number): Promise<void> {
  const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
  const result = await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: 50, pipelining: 1, timeout: 30, amount, requests: [requestFor(target, screen, rig.fixtures, state)] });
  if (result.non2xx > 0 || state.graphqlErrors > 0) throw new Error(`${target.kind}: ${result.non2xx} non-2xx, ${state.graphqlErrors} with errors: ${state.firstError}`);
}

/** The gateway's answer to the screen (its first user's, for a signed-in screen): what the bare server sends. */
async function answerBytes(): Promise<string> {
  const target = await startTarget({ ...rig, gatewayEntry: resolve(entryNew) }, 'gateway');
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (screen.signedIn) Object.assign(headers, { authorization: `Bearer ${rig.fixtures.tokens[0]}`, 'x-service-client-key': rig.fixtures.clientKey });
    const response = await request(`http://127.0.0.1:${target.port}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: screen.query, variables: screen.variables }) });
    const file = join(mkdtempSync(join(tmpdir(), 'hits-')), 'body.json');
    writeFileSync(file, Buffer.from(await response.body.arrayBuffer()));
    return file;
  } finally {
    await target.proc.stop();
  }
}

async function window(kind: 'bare' | 'gateway', entry: string, bodyFile: string): Promise<number> {
  const target = await startTarget({ ...rig, ...(kind === 'gateway' ? { gatewayEntry: resolve(entry) } : {}) }, kind, bodyFile);
  try {
    await load(target, 1000);
    await settle(rig.simUrl, target.proc.pid);
    const before = cpuMs(target.proc.pid);
    await load(target, requests);
    return (cpuMs(target.proc.pid) - before) / requests;
  } finally {
    await target.proc.stop();
  }
}

try {
  const bodyFile = await answerBytes();
  const servers = [
    { name: 'bare', kind: 'bare' as const, entry: '', cpu: [] as number[] },
    { name: 'gateway', kind: 'gateway' as const, entry: entryNew, cpu: [] as number[] },
    ...(entryOld ? [{ name: 'gateway-old', kind: 'gateway' as const, entry: entryOld, cpu: [] as number[] }] : []),
  ];
  for (let round = 0; round < rounds; round++) {
    const order = servers.map((_, i) => servers[(i + round) % servers.length]!);
    for (const server of order) server.cpu.push(await window(server.kind, server.entry, bodyFile));
    console.log(`round ${round + 1}: ${servers.map((s) => `${s.name} ${s.cpu.at(-1)!.toFixed(3)}`).join(', ')} ms/req`);
  }
  const bare = servers[0]!.cpu;
  const summary = Object.fromEntries(servers.map((s) => [s.name, { msPerRequest: +median(s.cpu).toFixed(3), toBare: +median(s.cpu.map((x, i) => x / bare[i]!)).toFixed(2) }]));
  console.log(JSON.stringify({ screen: screen.name, requests, rounds, ...summary }));
} finally {
  await sim.stop();
}
