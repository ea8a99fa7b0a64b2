import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Starts the real server (`npm start`'s entry) and resolves with its printed banner. */
function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; output: () => string; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 20_000);
    const check = () => {
      const match = /GraphiQL at (http:\/\/localhost:\d+)\/graphql/.exec(out);
      if (match && out.includes('Wallets to try')) {
        clearTimeout(timer);
        resolve({ child, output: () => out, base: match[1]! });
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
}

describe('npm start', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill('SIGKILL');
  });

  it('serves the simulator-backed gateway, prints demo credentials, and drains on SIGTERM', async () => {
    const server = await startServer({});
    child = server.child;
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

    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('fails fast naming the variable when only some upstream URLs are set', async () => {
    const child2 = spawn(process.execPath, ['--import', 'tsx', 'src/dev.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', ALERTS_URL: 'http://127.0.0.1:1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child2.stderr.on('data', (chunk) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child2.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toMatch(/MARKETS_URL, ASSETS_URL/);
  });
});
