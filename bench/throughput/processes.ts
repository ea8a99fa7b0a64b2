/**
 * The processes of the throughput rig: each server in its own process, pinned to one core with
 * `taskset`, read through /proc (CPU time, peak RSS) and stopped with SIGTERM (SIGKILL after 3 s).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { request } from 'undici';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** `taskset` is there and the machine has a core to spare for the measured server. */
export function canPin(): boolean {
  if (process.platform !== 'linux' || cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins a running process (every thread) to one core. */
export function pin(pid: number, core: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(core), String(pid)], { stdio: 'ignore' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface Proc {
  pid: number;
  child: ChildProcess;
  /** The last lines the process wrote to stderr (for an error message). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `node <args>` pinned to `core` (or unpinned when `core` is null). */
export function startNode(args: readonly string[], env: NodeJS.ProcessEnv, core: number | null): Proc {
  const command = core === null ? process.execPath : 'taskset';
  const argv = core === null ? [...args] : ['-c', String(core), process.execPath, ...args];
  const child = spawn(command, argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    tail = (tail + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    // taskset execs node in place: the child's pid is node's.
    pid: child.pid!,
    child,
    stderr: () => tail,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Polls `url` until it answers 200 (or the process exits, or `timeoutMs` passes). */
export async function waitReady(proc: Proc, url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`process exited (${proc.child.exitCode}) before ${url} answered:\n${proc.stderr()}`);
    try {
      const response = await request(url, { method: 'GET' });
      await response.body.dump();
      if (response.statusCode === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms:\n${proc.stderr()}`);
}

/** CPU time the process has used so far (user + system, every thread), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Peak resident set size of the process so far (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}
