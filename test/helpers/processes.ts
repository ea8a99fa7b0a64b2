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

/** Ends a child process and waits for its exit (SIGTERM unless told otherwise). */
export async function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * Spawns a process and resolves once its output (stdout or stderr) matches `ready`; rejects if it
 * exits first, with what it printed.
 */
export function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<ChildProcess> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env, cwd: options.cwd });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        child.off('exit', onExit);
        // Keep draining the pipes so a chatty child never blocks on a full one.
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${command} exited (${code}) before it was ready:\n${output}`));
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', reject);
    child.once('exit', onExit);
  });
}

/** Starts `redis-server` without persistence and resolves once it accepts connections. */
export function startRedis(port: number): Promise<ChildProcess> {
  return startProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], /Ready to accept connections/);
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
