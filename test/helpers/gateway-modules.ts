import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import type { Simulator } from '../../src/simulator/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Package names, each loaded module as `package/path/in/it.js`, every loaded file's URL, and Node's own modules (`process.moduleLoadList`). */
export type Loaded = Set<string> & { modules: string[]; urls: string[]; builtins: string[] };

/** The production entry run from src/ (as `npm start` compiles it), or a built one given as its path (`dist/server.js`). */
const SOURCE_ENTRY = ['--import', 'tsx', '--import', './test/helpers/loaded-modules.mjs', 'src/server.ts'];

/**
 * Starts a production entry with `env`, answers one request once it is ready, stops it with SIGTERM and
 * returns the packages it loaded (as the preloaded helper recorded them), with the paths of their
 * modules; `use` runs against the ready gateway's base URL before it is stopped.
 */
export async function packagesLoaded(sim: Simulator, env: Record<string, string>, use?: (base: string) => Promise<void>, built?: string): Promise<Loaded> {
  const args = built ? ['--import', './test/helpers/loaded-modules.mjs', built] : SOURCE_ENTRY;
  const child = spawn(process.execPath, args, {
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
  await use?.(base);
  child.kill('SIGTERM');
  await exited;
  const listed = /LOADED MODULES (.*)/.exec(err);
  if (!listed) throw new Error(`no module list:\n${err}`);
  const urls = JSON.parse(listed[1]!) as string[];
  const modules = urls.flatMap((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+\/.*)/.exec(url)?.[1] ?? []);
  const builtins = JSON.parse(/NODE MODULES (.*)/.exec(err)?.[1] ?? '[]') as string[];
  return Object.assign(new Set(modules.map((path) => /^(?:@[^/]+\/)?[^/]+/.exec(path)![0])), { modules, urls, builtins });
}

/** One query over graphql-transport-ws, as a browser's graphql-ws client sends it. */
export async function queryOverWebSocket(base: string): Promise<unknown> {
  const client = createClient({ url: `${base.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    return await new Promise((resolve, reject) => {
      client.subscribe({ query: '{ __typename }' }, { next: resolve, error: reject, complete: () => {} });
    });
  } finally {
    await client.dispose();
  }
}
