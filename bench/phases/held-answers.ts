/**
 * What the response cache's entries hold once answered on the fast path for hits, per build (bench/PHASES.md,
 * "cached hit, third pass"): a peak RSS at 1,000 users moves by tens of MiB between runs of one build on
 * a loaded machine, more than the entries hold, so this counts them in process. Each build stores the
 * MobileHome-sized answer of `users` callers in its own store, answers each once through its hit path
 * (a build that makes a held form on the first hit makes it then), and reports the heap and external
 * bytes that remain after a full collection, per entry:
 *
 *   npm run build:modules && node --expose-gc --import tsx bench/phases/held-answers.ts dist [<other build's dist>] [users]
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import { CLIENT_KEY, hitBuild, schemaOf } from './hit-build.js';

const [first = 'dist', second = '', usersArg = '1000'] = process.argv.slice(2);
const users = Number(usersArg);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const query = '{ viewer { id channels { key value verified } } }';
// An answer of the mobile screen's size (≈ 3.5 KB of JSON), different per user.
const answerOf = (user: number) => ({ data: { viewer: { id: `user-${user}`, items: Array.from({ length: 30 }, (_, i) => ({ id: `item-${i}`, name: 'y'.repeat(90) })) } } });
const schema = await schemaOf(first);

/** Heap used plus external memory (Buffers' bytes live there), after a full collection. */
function held(): number {
  gc!();
  gc!();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function measure(build: string): Promise<number> {
  const { store, reader, hit } = await hitBuild(build, schema, 256 * 1024 * 1024);
  const authorization = (user: number) => `Bearer token-${user}-${'x'.repeat(40)}`;
  const before = held();
  for (let user = 0; user < users; user++) {
    const cached = reader.keyOf(query, undefined, {}, { authorization: authorization(user), clientKey: CLIENT_KEY })!;
    void store.set(cached.key, structuredClone(answerOf(user)), cached.policy.ttlMs);
    const headers = { host: 'x', 'content-type': 'application/json', accept: 'application/json', authorization: authorization(user), 'x-service-client-key': CLIENT_KEY };
    const req = { method: 'POST', url: '/graphql', headers, httpVersionMajor: 1, httpVersionMinor: 1 } as unknown as IncomingMessage;
    if (hit(req, new ServerResponse(req), { query }) !== true) throw new Error(`${build}: user ${user} was not answered on the fast path`);
  }
  const perEntry = (held() - before) / users;
  // Keeps the store alive until measured.
  if (!store) throw new Error('unreachable');
  return perEntry;
}

for (const build of [first, ...(second ? [second] : [])]) console.log(`${build}: ${(await measure(build)).toFixed(0)} bytes held per answered entry (${users} entries)`);
