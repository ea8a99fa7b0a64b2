/**
 * Why the gateway's serialization of a cold MobileHome costs more than the baseline's for the same bytes
 * (bench/PHASES.md, branch `exec2`): the real result objects, each stringified the first time as the
 * server does it, against the same objects again and against plain copies of them.
 *
 *   node --allow-natives-syntax --import tsx bench/phases/serialize-shape.ts [users] [rounds]
 *
 * An in-process simulator and gateway (response cache, positions sharing and the identity memo off, as
 * the bench's cold row); each user's MobileHome runs twice to be compiled, then once more for its result.
 * `--allow-natives-syntax` adds V8's own view of the objects (dictionary-mode objects, distinct maps).
 * Set SPLIT to stringify each result's strings and numbers on their own first, COPY to stringify first a
 * copy of its objects made just before (the leaves the same), STRINGS (with natives syntax) to print
 * V8's type of each string of one result (cons, sliced or sequential).
 */
import { readFileSync } from 'node:fs';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { startSimulator } from '../../src/simulator/index.js';

const users = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 5);
const QUERY = readFileSync(new URL('../../test/operations/MobileHome.graphql', import.meta.url), 'utf8');

// Every result the compiled query's serializer writes: timed where the server writes it, and kept.
const stringify = JSON.stringify;
let capture = false;
const firsts: { value: unknown; us: number; text: string }[] = [];
JSON.stringify = function (value: unknown, ...rest: unknown[]) {
  if (!capture || !isResult(value)) return (stringify as (...a: unknown[]) => string)(value, ...rest);
  if (process.env['SPLIT']) split(value);
  if (process.env['COPY']) {
    const copy = structural(value);
    const start = process.hrtime.bigint();
    stringify(copy);
    copies.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  if (process.env['STRINGS'] && firsts.length === 5) printStrings(value, 'result');
  const start = process.hrtime.bigint();
  const text = stringify(value);
  firsts.push({ value, us: Number(process.hrtime.bigint() - start) / 1000, text });
  return text;
} as typeof JSON.stringify;

/** With SPLIT set: the result's strings, then its numbers, stringified first on their own (as arrays), timed. */
const splits: Record<'strings' | 'numbers' | 'stringsAgain' | 'numbersAgain', number>[] = [];
function split(value: unknown): void {
  const strings: string[] = [];
  const numbers: number[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') strings.push(v);
    else if (typeof v === 'number') numbers.push(v);
    else if (typeof v === 'object' && v !== null) for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
  };
  walk(value);
  const time = (v: unknown) => {
    const start = process.hrtime.bigint();
    stringify(v);
    return Number(process.hrtime.bigint() - start) / 1000;
  };
  splits.push({ strings: time(strings), numbers: time(numbers), stringsAgain: time(strings), numbersAgain: time(numbers) });
}

/** With STRINGS set: each string of one result, by its path, with V8's own print of it (its type: cons, sliced, sequential). */
function printStrings(value: unknown, path: string): void {
  if (typeof value === 'string') {
    console.log(`STRING ${path}`);
    // V8's natives syntax is only reachable through a function compiled at run time.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    (new Function('s', '%DebugPrint(s)') as (s: string) => void)(value);
  } else if (typeof value === 'object' && value !== null) for (const k of Object.keys(value)) printStrings((value as Record<string, unknown>)[k], `${path}.${k}`);
}

/** With COPY set: a copy of the result's objects and arrays made at once, its leaves the same, stringified first. */
const copies: number[] = [];
function structural(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(structural);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = structural((value as Record<string, unknown>)[k]);
  return out;
}

function isResult(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'data' in value && typeof (value as { data?: { viewer?: unknown } }).data?.viewer === 'object';
}

const sim = await startSimulator({ seed: 42, subscribers: users + 10 });
const config = Object.freeze(loadConfig({ RESPONSE_CACHE: 'off', AUTH_IDENTITY_TTL_MS: '0', POSITIONS_SHARE_TTL_MS: '0' }));
const services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
const app = createApp({ config, services });
await services.start();
const tokens = [...sim.alerts.subscribers.values()].map((s) => s.token).slice(0, users);
const run = async (token: string) => {
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-service-client-key': sim.alerts.demo.clientKey },
    body: stringify({ query: QUERY }),
  });
  await response.text();
};
for (const token of tokens.slice(0, 20)) await run(token);
for (const token of tokens.slice(0, 20)) await run(token);
capture = true;
for (const token of tokens) await run(token);
capture = false;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bytes = firsts.reduce((n, f) => n + f.text.length, 0) / firsts.length;
console.log(`${firsts.length} results, ${bytes.toFixed(0)} bytes on average`);
console.log(`first stringify where the server writes it: median ${median(firsts.map((f) => f.us)).toFixed(2)} µs`);

/** The median µs of one result's stringify, in each of `rounds` passes over all the results. */
function timed(label: string, values: unknown[]): void {
  const per: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const each: number[] = [];
    for (const value of values) {
      const start = process.hrtime.bigint();
      stringify(value);
      each.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    per.push(median(each));
  }
  console.log(`${label}: ${per.map((x) => x.toFixed(2)).join(', ')} µs a result (medians)`);
}
if (copies.length) console.log(`first, a copy of its objects made just before (leaves the same): ${median(copies).toFixed(2)} µs (then the whole result above)`);
if (splits.length) console.log(`first, its strings alone: ${median(splits.map((x) => x.strings)).toFixed(2)} µs, its numbers alone: ${median(splits.map((x) => x.numbers)).toFixed(2)} µs; again: ${median(splits.map((x) => x.stringsAgain)).toFixed(2)} and ${median(splits.map((x) => x.numbersAgain)).toFixed(2)} µs (then the whole result above)`);
timed('the same result objects again', firsts.map((f) => f.value));
timed('plain copies (JSON.parse of the text), first time included', firsts.map((f) => JSON.parse(f.text)));
describeShapes(firsts.map((f) => f.value));

/** V8's view: objects in dictionary mode, distinct maps, two-byte and non-flat strings (with --allow-natives-syntax). */
function describeShapes(values: unknown[]): void {
  let natives: { fast: (o: object) => boolean; same: (a: object, b: object) => boolean } | null = null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- V8's natives syntax is only reachable through a function compiled at run time.
    natives = { fast: new Function('o', 'return %HasFastProperties(o)') as never, same: new Function('a', 'b', 'return %HaveSameMap(a, b)') as never };
  } catch {
    console.log('(run with --allow-natives-syntax for the objects\' maps)');
  }
  let objects = 0, dictionary = 0, arrays = 0, doubles = 0, integers = 0, strings = 0, twoByte = 0, fns = 0, undef = 0;
  const maps: object[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      strings++;
      if (/[\u0100-\uffff]/.test(value)) twoByte++;
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && Math.abs(value) < 2 ** 30) integers++;
      else doubles++;
    } else if (typeof value === 'function') fns++;
    else if (value === undefined) undef++;
    else if (Array.isArray(value)) {
      arrays++;
      value.forEach(walk);
    } else if (typeof value === 'object' && value !== null) {
      objects++;
      if (natives && !natives.fast(value)) dictionary++;
      if (natives && maps.length < 2000 && !maps.some((m) => natives.same(m, value))) maps.push(value);
      for (const key of Object.keys(value)) walk((value as Record<string, unknown>)[key]);
    }
  };
  for (const value of values) walk(value);
  const n = values.length;
  console.log(
    `per result: ${(objects / n).toFixed(1)} objects (${(dictionary / n).toFixed(1)} in dictionary mode), ${(arrays / n).toFixed(1)} arrays, ` +
      `${(strings / n).toFixed(1)} strings (${(twoByte / n).toFixed(2)} two-byte), ${(integers / n).toFixed(1)} small integers, ${(doubles / n).toFixed(1)} other numbers, ` +
      `${(fns / n).toFixed(1)} functions, ${(undef / n).toFixed(1)} undefined` + (natives ? `; ${maps.length} distinct maps over all results` : ''),
  );
}

await services.close();
await sim.close();
