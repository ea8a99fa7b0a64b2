import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each test starts a process that compiles and loads the whole gateway: slow on a busy machine. */
const SPAWN_TIMEOUT = 120_000;

/**
 * Starts the production entry (`src/server.ts`) with `env`, answers one request once it is ready, stops
 * it with SIGTERM and returns the packages it loaded (as the preloaded helper recorded them).
 */
async function packagesLoaded(sim: Simulator, env: Record<string, string>): Promise<Set<string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', './test/helpers/loaded-modules.mjs', 'src/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', NODE_ENV: 'production', ALERTS_URL: sim.urls.alerts, MARKETS_URL: sim.urls.markets, ASSETS_URL: sim.urls.assets, CURSOR_SECRET: 'test-cursor-secret', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /Gateway ready: GraphQL at (http:\/\/localhost:\d+)\/graphql/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`exited before it was ready:\n${out}${err}`)));
  });
  const answer = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
  expect(answer.status).toBe(200);
  child.kill('SIGTERM');
  await exited;
  const listed = /LOADED MODULES (.*)/.exec(err);
  if (!listed) throw new Error(`no module list:\n${err}`);
  const urls = JSON.parse(listed[1]!) as string[];
  return new Set(urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []));
}

describe('modules a gateway loads only when its configuration needs them', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it(
    'without REDIS_URL and tracing: neither ioredis nor OpenTelemetry’s SDK is loaded (only its small API, for log correlation)',
    async () => {
      const loaded = await packagesLoaded(sim, {});
      expect(loaded.has('graphql-yoga')).toBe(true);
      expect([...loaded].filter((name) => name === 'ioredis' || name.startsWith('@ioredis/') || (name.startsWith('@opentelemetry/') && name !== '@opentelemetry/api'))).toEqual([]);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'with REDIS_URL (a Redis that is away) and an OTLP endpoint: both are loaded, as they are used',
    async () => {
      const loaded = await packagesLoaded(sim, { REDIS_URL: 'redis://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'console', OTEL_TRACES_SAMPLER: 'always_off' });
      expect(loaded.has('ioredis')).toBe(true);
      expect(loaded.has('@opentelemetry/sdk-node')).toBe(true);
    },
    SPAWN_TIMEOUT,
  );
});
