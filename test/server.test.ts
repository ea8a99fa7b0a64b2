import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/simulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Each test starts a process that compiles and loads the whole gateway: slow on a busy machine. */
const SPAWN_TIMEOUT = 120_000;

interface Started {
  child: ChildProcess;
  output: () => string;
  base: string;
}

/** Runs a command in the project's root with the quiet test environment, collecting stdout and stderr. */
function run(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => ((out += chunk), (err += chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, stderr: () => err, exited };
}

/** Resolves once the banner (and `until`, if given) is printed, with the address the gateway bound. */
function started(process: ReturnType<typeof run>, until?: string): Promise<Started> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /Gateway ready: Graphi?QL at (http:\/\/localhost:\d+)\/graphql/.exec(process.output());
      if (match && (!until || process.output().includes(until))) resolve({ child: process.child, output: process.output, base: match[1]! });
    };
    process.child.stdout.on('data', check);
    void process.exited.then((code) => reject(new Error(`exited with ${code} before it was ready:\n${process.output()}`)));
  });
}

/** The PIDs of a process's children (Linux). */
function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port something already listens on. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/**
 * What a process manager does: SIGTERM to the PID it holds, npm's. Resolves once npm and the one process
 * under it (npm `exec`s the script, so no shell stands between them to swallow the signal) have exited.
 */
async function sigtermToNpm(npm: ReturnType<typeof run>): Promise<void> {
  const pids = childrenOf(npm.child.pid!);
  expect(pids).toHaveLength(1);
  // The script's own process, not a launcher (the tsx CLI) relaying signals to a child of its own.
  expect(childrenOf(pids[0]!)).toEqual([]);
  orphans.push(...pids);
  npm.child.kill('SIGTERM');
  await npm.exited;
  while (alive(pids[0]!)) await new Promise((resolve) => setTimeout(resolve, 50));
}

const spawned: ChildProcess[] = [];
/** Grandchildren (the gateway under npm): killed after the test should one outlive npm. */
const orphans: number[] = [];
afterEach(() => {
  for (const child of spawned.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of orphans.splice(0)) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

describe('npm start (the development entry)', () => {
  it('serves the simulator-backed gateway, prints demo credentials, and stops when SIGTERM reaches npm', async () => {
    const npm = run('npm', ['start'], {});
    spawned.push(npm.child);
    const server = await started(npm, 'Wallets to try');
    expect(server.output()).toMatch(/Authorization: Bearer \S+/);
    expect(server.output()).toMatch(/X-Service-Client-Key: \S+/);

    const health = await fetch(`${server.base}/health`);
    expect(health.status).toBe(200);
    const result = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ markets(first: 2) { edges { node { marketId } } } }' }),
    });
    const body = (await result.json()) as { data: { markets: { edges: unknown[] } } };
    expect(body.data.markets.edges).toHaveLength(2);

    await sigtermToNpm(npm);
    await expect(fetch(`${server.base}/health`)).rejects.toThrow();
  }, SPAWN_TIMEOUT);

  it('exits 1 at once with one line naming the port when the port is taken', async () => {
    const { port, server } = await takenPort();
    try {
      const npm = run('npm', ['start'], { PORT: String(port) });
      spawned.push(npm.child);
      expect(await npm.exited).toBe(1);
      const lines = npm.output().split('\n').filter((line) => line.includes(String(port)));
      expect(lines).toEqual([`Port ${port} is already in use (set PORT to a free port)`]);
      expect(npm.output()).not.toMatch(/WebSocket|Gateway ready/);
    } finally {
      server.close();
    }
  }, SPAWN_TIMEOUT);

  it('fails fast naming the variable when only some upstream URLs are set', async () => {
    const dev = run(process.execPath, ['--import', 'tsx', 'src/dev.ts'], { ALERTS_URL: 'http://127.0.0.1:1' });
    spawned.push(dev.child);
    expect(await dev.exited).toBe(1);
    expect(dev.output()).toMatch(/MARKETS_URL, ASSETS_URL/);
  }, SPAWN_TIMEOUT);
});

describe('npm run simulator (the upstreams standalone)', () => {
  /** Resolves once the simulator on `port` answers its controls, failing if `npm` exits first. */
  async function answering(npm: ReturnType<typeof run>, port: number): Promise<void> {
    for (;;) {
      if (npm.child.exitCode !== null) throw new Error(`npm run simulator exited (${npm.child.exitCode}):\n${npm.output()}`);
      if ((await fetch(`http://127.0.0.1:${port}/__sim/state`).then((r) => r.status, () => 0)) === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('stops when SIGTERM reaches npm, freeing its port; a start on a taken port exits 1 with one line', async () => {
    const { port, server } = await takenPort();
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const first = run('npm', ['run', 'simulator'], { SIMULATOR_PORT: String(port) });
    spawned.push(first.child);
    await answering(first, port);
    await sigtermToNpm(first);

    // The port is free again: a second start binds it.
    const second = run('npm', ['run', 'simulator'], { SIMULATOR_PORT: String(port) });
    spawned.push(second.child);
    await answering(second, port);
    orphans.push(...childrenOf(second.child.pid!));

    // And a third, while the second holds it, ends at once: exit code 1, one line, no stack trace.
    const third = run('npm', ['run', 'simulator'], { SIMULATOR_PORT: String(port) });
    spawned.push(third.child);
    expect(await third.exited).toBe(1);
    expect(third.stderr().trim().split('\n')).toEqual([`Port ${port} is already in use on 127.0.0.1 (set SIMULATOR_PORT to a free port)`]);
    expect(third.output()).not.toMatch(/Simulator listening|\n\s+at /);

    second.child.kill('SIGTERM');
    await second.exited;
  }, SPAWN_TIMEOUT);
});

describe('the production entry (src/server.ts, built to dist/server.js)', () => {
  let sim: Simulator;
  let upstreamEnv: Record<string, string>;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    // Production needs a key every replica shares for cursors (or REDIS_URL, or SINGLE_REPLICA=true).
    upstreamEnv = { ALERTS_URL: sim.urls.alerts, MARKETS_URL: sim.urls.markets, ASSETS_URL: sim.urls.assets, CURSOR_SECRET: 'test-cursor-secret' };
  });
  afterAll(() => sim.close());

  const production = (env: Record<string, string>) => {
    const server = run(process.execPath, ['--import', 'tsx', 'src/server.ts'], { NODE_ENV: 'production', ...env });
    spawned.push(server.child);
    return server;
  };

  it('refuses to start with NODE_ENV=production and no upstream URL, naming the three variables', async () => {
    const server = production({ ALERTS_URL: '', MARKETS_URL: '', ASSETS_URL: '' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/ALERTS_URL, MARKETS_URL, ASSETS_URL: required/);
    expect(server.output()).not.toMatch(/simulator at|Gateway ready/);
  }, SPAWN_TIMEOUT);

  it('refuses to start with no upstream URL outside production too: it has no simulator to fall back on', async () => {
    const server = production({ NODE_ENV: '', ALERTS_URL: '', MARKETS_URL: '', ASSETS_URL: '' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/ALERTS_URL, MARKETS_URL, ASSETS_URL: required/);
  }, SPAWN_TIMEOUT);

  it('refuses to start in production with no cursor key replicas could share (no CURSOR_SECRET, WEBHOOK_SECRET or REDIS_URL)', async () => {
    const server = production({ ...upstreamEnv, CURSOR_SECRET: '' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/Configuration error: CURSOR_SECRET: required in production .*SINGLE_REPLICA=true/);
    expect(server.output()).not.toMatch(/Gateway ready/);
  }, SPAWN_TIMEOUT);

  it('serves real upstreams, ready with their health, and drains on SIGTERM', async () => {
    const process = production(upstreamEnv);
    const server = await started(process);
    expect(server.output()).not.toMatch(/Demo credentials|simulator/);
    const ready = await fetch(`${server.base}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; upstreams: Record<string, { breaker: string }> };
    expect(body.status).toBe('ready');
    expect(body.upstreams['markets']!.breaker).toBe('closed');
    const result = await fetch(`${server.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ markets(first: 2) { edges { node { marketId } } } }' }),
    });
    expect(((await result.json()) as { data: { markets: { edges: unknown[] } } }).data.markets.edges).toHaveLength(2);
    server.child.kill('SIGTERM');
    expect(await process.exited).toBe(0);
  }, SPAWN_TIMEOUT);

  it('exits 1 at once with one line naming the port when the port is taken', async () => {
    const { port, server } = await takenPort();
    try {
      const gateway = production({ ...upstreamEnv, PORT: String(port) });
      expect(await gateway.exited).toBe(1);
      expect(gateway.output().trim()).toBe(`Port ${port} is already in use (set PORT to a free port)`);
    } finally {
      server.close();
    }
  }, SPAWN_TIMEOUT);
});
