/**
 * How many executions a run of cached mobile hits causes (each user's stale entry refreshed once per
 * TTL, as expected), read from the gateway's own counters before and after `requests` requests:
 *
 *   npm run build && node --import tsx bench/phases/refresh-count.ts [mobile] [requests]
 */
import autocannon from 'autocannon';
import { request } from 'undici';
import { startPhaseRig } from './rig.js';
import { requestFor, type WindowState } from '../throughput/measure.js';
import { startTarget } from '../throughput/servers.js';

const [screenName = 'mobile', requestsArg = '30000'] = process.argv.slice(2);
const { sim, rig, screenOf } = await startPhaseRig();
const screen = screenOf(screenName);
const counters = async (port: number) => {
  const text = await (await request(`http://127.0.0.1:${port}/metrics`)).body.text();
  const read = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { executions: read('gateway_executions_total\\{shared="false"\\}'), hits: read('gateway_response_cache_requests_total\\{outcome="hit"\\}'), misses: read('gateway_response_cache_requests_total\\{outcome="miss"\\}') };
};
try {
  const target = await startTarget(rig, 'gateway');
  try {
    const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
    const before = await counters(target.port);
    const started = performance.now();
    await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: 50, pipelining: 1, timeout: 30, amount: Number(requestsArg), requests: [requestFor(target, screen, rig.fixtures, state)] });
    const seconds = (performance.now() - started) / 1000;
    const after = await counters(target.port);
    const delta = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - before[k as keyof typeof before]]));
    console.log(JSON.stringify({ screen: screen.name, users: screen.users, requests: Number(requestsArg), seconds: +seconds.toFixed(1), ...delta, graphqlErrors: state.graphqlErrors, firstError: state.firstError?.slice(0, 200) ?? null }));
  } finally {
    await target.proc.stop();
  }
} finally {
  await sim.stop();
}
