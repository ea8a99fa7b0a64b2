import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { packagesLoaded, queryOverWebSocket, type Loaded } from './helpers/gateway-modules.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Bundling, then each test starting the bundle: slow on a busy machine. */
const TIMEOUT = 120_000;
/**
 * The packages Node may load from node_modules at run time (scripts/bundle.ts says why each is left out
 * of the bundle), with graphql-jit's own dependencies; of fast-json-stringify only its path is resolved.
 */
const LEFT_TO_NODE = ['@opentelemetry/api', 'fast-json-stringify', 'graphql', 'graphql-jit', 'graphql-scalars', 'lodash.memoize', 'lodash.merge', 'lodash.mergewith', 'rate-limiter-flexible', 'undici'];
/** The packages the image's run stage installs (`npm ci --omit=dev --omit=optional`), read from the lockfile as npm reads it. */
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }> };
const IN_IMAGE = new Set(
  Object.entries(lock.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && !entry.optional && !entry.devOptional)
    .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
);
/** What the process loaded from node_modules that the image would not hold ('.cache' is this test's bundle itself). */
const missingFromImage = (loaded: Loaded) => [...loaded].filter((name) => name !== '.cache' && !IN_IMAGE.has(name));

describe('the production build (scripts/bundle.ts): one bundle that loads what src/server.ts loads, lazily where it is lazy', () => {
  let sim: Simulator;
  let dir: string;
  let entry: string;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    // Inside the project, as dist/ is, so the packages left to Node resolve from its node_modules.
    mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
    dir = mkdtempSync(join(root, 'node_modules', '.cache', 'bundle-test-'));
    await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bundle.ts', dir], { cwd: root });
    entry = relative(root, join(dir, 'server.js'));
  }, TIMEOUT);
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The chunks of the bundle the process loaded, by name without their hash. */
  const chunks = (loaded: Loaded) => loaded.urls.filter((url) => url.includes('/chunks/')).map((url) => /\/chunks\/(\w+)-/.exec(url)![1]);
  const MARKETS = JSON.stringify({ query: '{ markets(first: 2) { edges { node { marketId } } } }' });

  it(
    'answers from the bundle; of node_modules, Node loads only what the code loads through createRequire or import() on purpose, and one graphql',
    async () => {
      const answers: unknown[] = [];
      const loaded = await packagesLoaded(
        sim,
        {},
        async (base) => {
          // The third run of a document executes graphql-jit's compiled code (src/plugins/jit.ts).
          for (let i = 0; i < 3; i++) answers.push(await (await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: MARKETS })).json());
        },
        entry,
      );
      for (const answer of answers) expect((answer as { data: { markets: { edges: unknown[] } } }).data.markets.edges).toHaveLength(2);
      expect(answers[2]).toEqual(answers[0]);
      expect([...loaded].filter((name) => !LEFT_TO_NODE.includes(name) && name !== '.cache')).toEqual([]);
      expect(missingFromImage(loaded)).toEqual([]);
      expect(loaded.has('graphql')).toBe(true);
      // graphql from its CommonJS files only: the schema, graphql-jit and graphql-scalars share its classes.
      expect(loaded.modules.filter((path) => path.startsWith('graphql/') && !path.endsWith('.js'))).toEqual([]);
      // What src/server.ts leaves unloaded stays so: the stand-in keeps ajv out, no Node bundled undici, no OpenTelemetry ES module.
      expect(loaded.modules.filter((path) => path.startsWith('fast-json-stringify/') && path !== 'fast-json-stringify/index.js')).toEqual([]);
      expect(loaded.builtins.filter((name) => name.includes('undici'))).toEqual([]);
      expect(loaded.modules.filter((path) => path.startsWith('@opentelemetry/') && !path.endsWith('.cjs'))).toEqual([]);
      expect(chunks(loaded).filter((name) => name !== 'chunk')).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'loads the WebSocket server’s chunk (ws, graphql-ws) with the first upgrade, and answers over it',
    async () => {
      let answer: unknown;
      const loaded = await packagesLoaded(sim, {}, async (base) => void (answer = await queryOverWebSocket(base)), entry);
      expect(answer).toEqual({ data: { __typename: 'Query' } });
      expect(chunks(loaded)).toContain('ws');
      expect(missingFromImage(loaded)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    'with REDIS_URL (a Redis that is away) and an OTLP endpoint: ioredis and the tracing chunk with OpenTelemetry’s SDK are loaded',
    async () => {
      const loaded = await packagesLoaded(sim, { REDIS_URL: 'redis://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'console', OTEL_TRACES_SAMPLER: 'always_off' }, undefined, entry);
      expect(loaded.has('ioredis')).toBe(true);
      expect(loaded.has('@opentelemetry/sdk-node')).toBe(true);
      expect(chunks(loaded)).toContain('tracing');
      // debug (under OpenTelemetry's SDK) requires supports-color inside a try, for colours: the image goes without.
      expect(missingFromImage(loaded).filter((name) => name !== 'supports-color' && name !== 'has-flag')).toEqual([]);
    },
    TIMEOUT,
  );
});
