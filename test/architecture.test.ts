import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The shape of src/, read from the code as a maintainer would draw it: every import (type-only ones
 * too, as madge counts them), the layers they may cross, and the size of each file. README.md
 * ("Architecture") says the same in words.
 */

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function files(dir: string, keep = (path: string) => path.endsWith('.ts')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path, keep) : keep(path) ? [path] : [];
  });
}

const all = files(SRC);

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The folders the size limit covers (test/ has its own check, data files included). */
const SIZED = ['src', 'bench', 'scripts'];
const MAX_LINES = 250;
const rel = (path: string) => relative(SRC, path).split('\\').join('/');

/** Each file's imports of other files of src/, by path relative to src/. */
const graph = new Map<string, string[]>(
  all.map((path) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    const targets = importedFiles
      .map((f) => f.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => rel(resolve(dirname(path), name).replace(/\.js$/, '.ts')));
    return [rel(path), targets];
  }),
);

/** The layers below the schema: what they are built from never reaches back up to GraphQL or Yoga's plugins. */
const LOWER = ['upstream/', 'stores/', 'events/', 'models/', 'simulator/', 'response-cache/store', 'loaders/', 'sources/'];
const UPPER = ['schema/', 'plugins/'];

describe('architecture', () => {
  it('reads every source file', () => {
    expect(graph.size).toBeGreaterThan(100);
  });

  it('has no import cycle', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('finds a cycle where there is one (the check itself)', () => {
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(cyclesOf(sample)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('has no upward import: nothing below the schema imports the schema, the plugins or the per-request root', () => {
    const upward = [...graph].flatMap(([from, targets]) =>
      LOWER.some((layer) => from.startsWith(layer))
        ? targets.filter((to) => UPPER.some((layer) => to.startsWith(layer)) || to === 'request-context.ts').map((to) => `${from} → ${to}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('keeps the plugins and the response cache apart: app.ts composes them, neither imports the other', () => {
    const crossing = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => (from.startsWith('plugins/') && to.startsWith('response-cache/')) || (from.startsWith('response-cache/') && to.startsWith('plugins/')))
        .map((to) => `${from} → ${to}`),
    );
    expect(crossing).toEqual([]);
  });

  it('reaches the operation module (scope, deadline, call budget, ledger) only through operation/index.ts from outside it', () => {
    const deep = [...graph].flatMap(([from, targets]) =>
      from.startsWith('operation/') ? [] : targets.filter((to) => to.startsWith('operation/') && to !== 'operation/index.ts').map((to) => `${from} → ${to}`),
    );
    expect(deep).toEqual([]);
  });

  it('keeps the schema on its sources and models: no import between schema/ and upstream/ or stores/, either way', () => {
    const below = ['upstream/', 'stores/'];
    const crossing = [...graph].flatMap(([from, targets]) =>
      targets
        .filter((to) => (from.startsWith('schema/') && below.some((layer) => to.startsWith(layer))) || (below.some((layer) => from.startsWith(layer)) && to.startsWith('schema/')))
        .map((to) => `${from} → ${to}`),
    );
    expect(crossing).toEqual([]);
  });

  it('keeps every Yoga plugin (an exported use… function) under plugins/, the response cache composing its own', () => {
    const outside = all
      .map(rel)
      .filter((file) => !file.startsWith('plugins/') && !file.startsWith('response-cache/'))
      .filter((file) => /export function use[A-Z]/.test(readFileSync(join(SRC, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('loads ioredis and OpenTelemetry’s SDK only when configured: ioredis through redis-client.ts, the SDK through a dynamic import of tracing.ts', () => {
    const eager = all.map(rel).filter((file) => {
      const source = readFileSync(join(SRC, file), 'utf8');
      const redis = /^import (?!type )[^;]*from 'ioredis'/m.test(source);
      const sdk = file !== 'tracing.ts' && /from '@opentelemetry\/(?!api')/.test(source);
      return redis || sdk || /^import [^;]*from '\.{1,2}\/(?:\.\.\/)*tracing\.js'/m.test(source);
    });
    expect(eager).toEqual([]);
  });

  it('formats nothing with ICU (toLocaleString, Intl): its locale data is megabytes of resident memory, the simulator aside', () => {
    const icu = all.map(rel).filter((file) => !file.startsWith('simulator/') && /\.toLocale\w*String\(|\bIntl\./.test(readFileSync(join(SRC, file), 'utf8').replace(/^\s*(?:\/\/|\*).*$/gm, '')));
    expect(icu).toEqual([]);
  });

  it('has no module that exists only to break a cycle', () => {
    expect(graph.has('deps.ts')).toBe(false);
  });

  it('keeps every file of src/, bench/ and scripts/ within 250 lines', () => {
    const long = SIZED.flatMap((dir) => files(fileURLToPath(new URL(`../${dir}/`, import.meta.url))))
      .map((path) => ({ file: relative(ROOT, path).split('\\').join('/'), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long.map(({ file, lines }) => `${file}: ${lines}`)).toEqual([]);
  });

  it('keeps every file under test/ within 250 lines: one subject a file, shared set-up in test/helpers/', () => {
    const long = files(fileURLToPath(new URL('./', import.meta.url)), () => true)
      .map((path) => ({ file: relative(ROOT, path).split('\\').join('/'), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long.map(({ file, lines }) => `${file}: ${lines}`)).toEqual([]);
  });

  it('builds the schema only in app.ts: the services own what the schema uses (cursor keys included) and hand it down', () => {
    const into = [...graph].flatMap(([from, targets]) =>
      from.startsWith('schema/') || from === 'app.ts' ? [] : targets.filter((to) => to.startsWith('schema/')).map((to) => `${from} → ${to}`),
    );
    expect(into).toEqual([]);
  });

  it('keeps no mutable state at module level in schema/ (no `let`, no module-wide map or cache): per-deployment state lives in the services', () => {
    const mutable = /^(?:export )?(?:let |const \w+(?::[^=]+)? = new (?:Map|Set|WeakMap|LRUCache)\b)/m;
    expect(all.filter((path) => rel(path).startsWith('schema/') && mutable.test(readFileSync(path, 'utf8'))).map(rel)).toEqual([]);
  });
});

/** Tarjan's strongly connected components: each of more than one file, or a file importing itself, is a cycle. */
function cyclesOf(imports: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of imports.get(v) ?? []) {
      if (!imports.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || imports.get(v)!.includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of imports.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
