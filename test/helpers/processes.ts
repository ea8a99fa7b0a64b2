import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, it } from 'vitest';

/**
 * Whether a binary a test needs is on the PATH. Without it the test is skipped with a printed reason,
 * except under `CI=true`, where a failing case says what is missing (`.ci/run` installs it).
 */
export function requireBinary(file: string, binary: string, versionArgs: string[], install: string): boolean {
  const present = spawnSync(binary, versionArgs).status === 0;
  const inCI = process.env['CI'] === 'true';
  if (!present && !inCI) console.warn(`${file}: skipped, no ${binary} on PATH (${install})`);
  describe.runIf(!present && inCI)(`${binary} in CI`, () => {
    it(`has a ${binary} to test against`, () => {
      throw new Error(`${binary} is not installed: .ci/run installs it from Debian packages; ${file} cannot run`);
    });
  });
  return present;
}

/** Ends a child process and waits for its exit: `signal` (SIGTERM), then SIGKILL if it is still there after 5 s. */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(force);
}

export interface StartedProcess {
  child: ChildProcess;
  /** What it printed so far (stdout and stderr together; the last 64 KiB). */
  output(): string;
}

/**
 * Spawns a process and resolves once its output matches `ready` (at once when `ready` is null);
 * rejects if it exits first, with what it printed.
 */
export function startProcess(
  command: string,
  args: string[],
  ready: RegExp | null,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<StartedProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env, cwd: options.cwd });
  let output = '';
  const started: StartedProcess = { child, output: () => output };
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve(started);
    };
    // Always drained, so a chatty child never blocks on a full pipe.
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-65_536);
      if (ready?.test(output)) settle();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => settle(error));
    child.once('exit', (code) => settle(new Error(`${command} exited (${code}) before it was ready:\n${output}`)));
    if (!ready) child.once('spawn', () => settle());
  });
}

/** Starts `redis-server` without persistence and resolves once it accepts connections. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  const { child } = await startProcess('redis-server', args, /Ready to accept connections/);
  return child;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** For a test file that needs a real Redis: whether it can run (see `requireBinary`). */
export function needsRedis(file: string): boolean {
  return requireBinary(file, 'redis-server', ['--version'], 'apt-get install redis-server');
}

/**
 * A gateway as a real process (`node --import tsx src/server.ts`) over the given upstreams, on a free
 * port, with `env` added; resolves as soon as its port answers `/health`, before it is ready.
 */
export async function startGatewayProcess(
  upstreams: { alerts: string; markets: string; assets: string },
  env: Record<string, string>,
): Promise<{ url: string; process: StartedProcess }> {
  const port = await freePort();
  const root = new URL('../../', import.meta.url).pathname;
  const gateway = await startProcess(process.execPath, ['--import', 'tsx', 'src/server.ts'], null, {
    cwd: root,
    env: { ...process.env, ALERTS_URL: upstreams.alerts, MARKETS_URL: upstreams.markets, ASSETS_URL: upstreams.assets, LOG_LEVEL: 'warn', ...env, PORT: String(port) },
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (gateway.child.exitCode !== null) throw new Error(`the gateway exited:\n${gateway.output()}`);
    if ((await fetch(`${url}/health`).then((r) => r.status, () => 0)) === 200) return { url, process: gateway };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until a gateway's `/ready` answers 200. */
export async function untilGatewayReady(url: string): Promise<void> {
  while ((await fetch(`${url}/ready`).then((r) => r.status, () => 0)) !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
}
