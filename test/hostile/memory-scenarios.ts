/**
 * Memory under the hostile loads of issues 12 and 20, measured rather than asserted:
 *
 *   npm run memory -- [parse] [webhook] [documents] [apq]
 *
 * - `parse`: distinct documents made unique by a comment (the token limit never fires): 200 of 1 MB
 *   (refused before parsing), 600 of 60 KB and 600 dense ones of ~4,000 tokens (parsed and cached).
 *   Prints the heap each phase leaves behind after a full GC: bounded by the parse caches' byte limits.
 * - `webhook`: 200 SSE subscribers that read one event and then stop, one that keeps reading, and
 *   three signed batches of 10,000 events (2.8 MB each) pushed at them. Prints peak RSS, the heap
 *   left after GC, the longest event-loop stall, the slowest `/health` answer meanwhile, how many
 *   subscribers were dropped and how many events the reader got.
 *
 * - `documents`: 100,000 distinct small documents (each a page of markets plus a numbered alias),
 *   each run once, then the 1,000 most recent run again (compiled by graphql-jit on their second run).
 *   Prints the heap retained after a full GC: bounded by the document caches' byte limits, whatever the count.
 * - `apq`: 300 automatic-persisted-query registrations of distinct 1.9 MB documents (each refused
 *   413), then 5,000 registrations of distinct small documents that run. Prints the heap retained.
 *
 * - `streams`: 2,000 event subscriptions over SSE held open (over a real HTTP server on loopback, so
 *   sockets count too). Prints the heap and RSS each stream holds.
 *
 * Each scenario ends with a line `RESULT {"scenario": ..., "retainedBytes": ...}` (the tests read it).
 * In memory, through `yoga.fetch`, over the embedded simulator; not part of `npm test` (the tests
 * run `apq` and a short `documents` in a child process under a small heap).
 */
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { createServices, type Services } from '../../src/services.js';
import { startSimulator } from '../../src/simulator/index.js';
import { heap, mib, post, result, countArg, statusLine, tally, SECRET } from './memory-measures.js';
import { streamsScenario, webhookScenario } from './memory-stream-scenarios.js';

async function parseScenario(app: App): Promise<void> {
  const padded = (n: number, bytes: number) => `{ __typename } # ${n} `.padEnd(bytes, 'x');
  const dense = (n: number) => `{ ${Array.from({ length: 1300 }, (_, i) => `a${n}_${i}: __typename`).join(' ')} }`;
  const phases: [string, number, (n: number) => string][] = [
    ['1 MB documents (comment-padded)', 200, (n) => padded(n, 1_000_000)],
    ["60 KB documents (comment-padded)", 600, (n) => padded(n, 60_000)],
    ["dense documents of 3,902 tokens", 600, dense],
  ];
  const start = heap();
  console.log(`parse: heap at start ${mib(start)}`);
  for (const [name, count, make] of phases) {
    const statuses = new Map<number, number>();
    for (let n = 0; n < count; n++) {
      const status = await post(app, make(n));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const answers = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
    console.log(`parse: ${count} ${name}: ${answers}; heap retained since start ${mib(heap() - start)}`);
  }
}

async function documentsScenario(app: App): Promise<void> {
  const count = countArg(100_000);
  const valid = (n: number) => `{ markets(first: 1) { edges { node { marketId } } } n${n}: __typename }`;
  // Refused by validation (an unknown field): its errors are cached with the document.
  const invalid = (n: number) => `{ markets(first: 1) { edges { node { marketId noSuchField } } } n${n}: __typename }`;
  // One run first, so what the first request builds once (schema caches, the market index) is not counted.
  await post(app, valid(-1));
  const start = heap();
  const statuses = new Map<number, number>();
  for (let n = 0; n < count; n++) tally(statuses, await post(app, n % 5 === 4 ? invalid(n) : valid(n)));
  for (let n = count - 1000; n < count; n++) tally(statuses, await post(app, valid(n)));
  const retained = heap() - start;
  console.log(
    `documents: ${count} distinct documents (one in five invalid), then the last 1,000 valid ones again (compiled on their second run): ` +
      `${statusLine(statuses)}; heap retained ${mib(retained)}`,
  );
  result('documents', retained);
}

async function apqScenario(app: App): Promise<void> {
  const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: documentHash(query) } });
  await post(app, '{ __typename }');
  const start = heap();
  const large = new Map<number, number>();
  for (let n = 0; n < 300; n++) {
    const query = `{ __typename } # ${n} `.padEnd(1_900_000, 'x');
    tally(large, await post(app, query, persisted(query)));
  }
  const small = new Map<number, number>();
  for (let n = 0; n < 5000; n++) {
    const query = `{ n${n}: __typename }`;
    tally(small, await post(app, query, persisted(query)));
  }
  const retained = heap() - start;
  console.log(`apq: 300 registrations of 1.9 MB documents: ${statusLine(large)}; 5,000 of small ones: ${statusLine(small)}; heap retained ${mib(retained)}`);
  result('apq', retained);
}

async function main(): Promise<void> {
  const which = new Set(process.argv.slice(2));
  const all = which.size === 0;
  const sim = await startSimulator({ seed: 42 });
  // No rate limit: one caller sends every request here.
  const config = Object.freeze({ ...loadConfig({ RATE_LIMIT_PER_MINUTE: '0', RESPONSE_CACHE: 'off', MAX_STREAMS_PER_CLIENT: '100000', MAX_STREAMS: '100000' }), webhookSecret: SECRET });
  const services: Services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
  const app = createApp({ config, services });
  await services.start();
  try {
    if (all || which.has('parse')) await parseScenario(app);
    if (all || which.has('webhook')) await webhookScenario(app, services);
    if (all || which.has('documents')) await documentsScenario(app);
    if (all || which.has('apq')) await apqScenario(app);
    if (all || which.has('streams')) await streamsScenario(app);
  } finally {
    await services.close();
    await sim.close();
  }
}

await main();
// Aborted streams and the simulator's sockets may keep handles open: the measurements are done.
process.exit(0);
