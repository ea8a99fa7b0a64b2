/**
 * The fast path for hits alone, in process, for two builds alternately (bench/PHASES.md, "cached hit,
 * in process"): no socket and no refresh, whose noise on this machine is larger than the fast path's
 * own cost. Each build gets the real response cache reader and store over the real schema, holds the
 * MobileHome answer of 100 users, and answers a request object shaped as node's (its body's bytes
 * handed over as node-http.ts hands them, parsed inside the loop when the build does not read them)
 * into a Node response without a socket (its head made, what is written kept):
 *
 *   npm run build:modules && node --import tsx bench/phases/hit-loop.ts dist <other build's dist> [rounds]
 *
 * Prints the median µs per hit of each build over the rounds (each round 30,000 hits per build).
 */
import { readFileSync } from 'node:fs';
import { ServerResponse, type IncomingMessage } from 'node:http';
import { median } from '../numbers.js';
import { CLIENT_KEY, hitBuild, schemaOf } from './hit-build.js';

const [first = 'dist', second = '', roundsArg = '12'] = process.argv.slice(2);
const builds = [first, ...(second ? [second] : [])];
const HITS_PER_ROUND = 30_000;
const USERS = Array.from({ length: 100 }, (_, i) => `Bearer token-${i}-${'x'.repeat(40)}`);
const query = readFileSync(new URL('../../test/operations/MobileHome.graphql', import.meta.url), 'utf8');
const sentBytes = Buffer.from(JSON.stringify({ query, variables: {} }));
// An answer of the screen's size: what the entry holds does not change the fast path's work.
const answer = { data: { viewer: { id: 'x', items: Array.from({ length: 120 }, (_, i) => ({ id: `item-${i}`, name: 'y'.repeat(100) })) } } };
const schema = await schemaOf(first);

async function setUp(build: string): Promise<(hits: number) => number> {
  const { store, reader, hit } = await hitBuild(build, schema, 64 * 1024 * 1024);
  for (const authorization of USERS) {
    const cached = reader.keyOf(query, undefined, {}, { authorization, clientKey: CLIENT_KEY })!;
    void store.set(cached.key, structuredClone(answer), cached.policy.ttlMs);
  }
  return (hits) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < hits; i++) {
      const headers = { host: 'x', 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: USERS[i % USERS.length], 'x-service-client-key': CLIENT_KEY };
      const req = { method: 'POST', url: '/graphql', headers, httpVersionMajor: 1, httpVersionMinor: 1 } as unknown as IncomingMessage;
      // A response with no socket: Node's head is made as for a real one, and what is written is kept in it.
      const res = new ServerResponse(req);
      // As node-http.ts: the body's bytes first when the build reads them, else the body parsed.
      const answered = hit.fromBytes?.(req, res, sentBytes) || hit(req, res, JSON.parse(sentBytes.toString()));
      if (answered !== true) throw new Error(`${build}: a request was not answered on the fast path`);
    }
    return Number(process.hrtime.bigint() - started) / 1000 / hits;
  };
}

const loops: ((hits: number) => number)[] = [];
for (const build of builds) loops.push(await setUp(build));
const times = builds.map(() => [] as number[]);
for (let round = 0; round < Number(roundsArg); round++) {
  // The first round warms each build's code up and is not counted.
  for (const [i, loop] of loops.entries()) {
    const us = loop(round === 0 ? 5_000 : HITS_PER_ROUND);
    if (round > 0) times[i]!.push(us);
  }
}
for (const [i, build] of builds.entries()) console.log(`${build}: median ${median(times[i]!).toFixed(2)} µs a hit (rounds ${times[i]!.map((t) => t.toFixed(1)).join(' ')})`);
