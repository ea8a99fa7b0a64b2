/** The standalone simulator in a child process, for the in-process profiles (its CPU is not theirs). */
import { spawn, type ChildProcess } from 'node:child_process';

export interface SimulatorChild {
  child: ChildProcess;
  urls: { alerts: string; markets: string; assets: string };
}

export async function startSimulatorChild(): Promise<SimulatorChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/simulator/main.ts'], {
    env: { ...process.env, SIMULATOR_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls = await new Promise<SimulatorChild['urls']>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = (name: string) => new RegExp(`${name}=(\\S+)`).exec(out)?.[1];
      const [alerts, markets, assets] = [url('ALERTS_URL'), url('MARKETS_URL'), url('ASSETS_URL')];
      if (alerts && markets && assets) resolve({ alerts, markets, assets });
    });
    child.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  return { child, urls };
}

/** Runs `one` `n` times, `concurrency` at a time. */
export async function runConcurrently(n: number, concurrency: number, one: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await one(next++);
    }),
  );
}
