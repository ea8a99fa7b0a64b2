import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, it } from 'vitest';

/** Whether a `redis-server` binary is on the PATH: tests against a real Redis skip without one, except in CI where they fail. */
export const haveRedis = spawnSync('redis-server', ['--version']).status === 0;
export const inCI = process.env['CI'] === 'true';

/**
 * For a test file that needs a real Redis: without `redis-server` it is skipped with a printed
 * reason, except in CI, where a failing test says why. Returns whether the Redis tests can run.
 */
export function needsRedis(file: string, what: string): boolean {
  if (!haveRedis && !inCI) console.warn(`${file}: skipped, no redis-server on PATH (apt-get install redis-server)`);
  describe.runIf(!haveRedis && inCI)(`${what} in CI`, () => {
    it('has a redis-server to test against', () => {
      throw new Error('redis-server is not installed: .ci/run installs it from Debian packages; the cross-replica tests cannot run');
    });
  });
  return haveRedis;
}

export async function stopRedis(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill();
  await exited;
}

/** Starts `redis-server` without persistence and resolves once it accepts connections. */
export function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)));
  });
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
