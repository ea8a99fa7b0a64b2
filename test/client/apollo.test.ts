import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHttpServer } from '../../src/node-http.js';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';

/**
 * The frontend path end to end: `npm run codegen` over schema.graphql and test/operations, the Apollo
 * Client example type-checked against what it generated, and its MobileHome run over HTTP against a
 * gateway that accepts nothing but the generated persisted-documents manifest.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const manifestPath = join(root, 'examples/client/gql/persisted-documents.json');
/** Codegen and two compilations on a busy 2-core machine. */
const SLOW = 180_000;

function run(command: string, args: string[]): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the codegen client (examples/client)', () => {
  let gw: TestGateway;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const codegen = run(bin('graphql-codegen'), ['--config', 'codegen.ts']);
    expect(codegen.status, codegen.output).toBe(0);
    const tsc = run(bin('tsc'), ['-p', 'examples/client/tsconfig.json']);
    expect(tsc.status, tsc.output).toBe(0);

    gw = await startTestGateway({ config: { persistedDocuments: manifestPath, allowArbitraryDocuments: false, apq: false } });
    server = createHttpServer(gw.app.yoga);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  }, SLOW);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await gw?.close();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('writes a persisted-documents manifest keyed sha256:<hex> of each golden operation', () => {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, string>;
    const names = Object.values(manifest).map((document) => /^(?:query|mutation|subscription) (\w+)/.exec(document)?.[1]);
    expect(names).toContain('MobileHome');
    for (const [key, document] of Object.entries(manifest)) expect(key).toBe(`sha256:${documentHash(document)}`);
  });

  it('runs MobileHome through Apollo Client by hash alone, typed, with zero console warnings', async () => {
    const warn = vi.spyOn(console, 'warn');
    const error = vi.spyOn(console, 'error');
    const { createClient, loadMobileHome } = await import('../../examples/client/mobile-home.js');
    const client = createClient({ url, headers: gw.viewerHeaders });

    const home = await loadMobileHome(client, { positions: 10, markets: 5 });
    expect(home.viewer?.walletAddress).toBe(gw.sim.alerts.demo.walletAddress);
    expect(home.viewer?.wallet?.positions?.edges.length).toBeGreaterThan(0);
    expect(home.topLending?.edges).toHaveLength(5);
    expect(home.topLending?.edges.every(({ node }) => node.__typename === 'LendingMarket')).toBe(true);
    expect(totalCalls(gw)).toBeGreaterThan(0);

    // Asked again, the cache answers it whole (every field it was sent, fragments included), with no request.
    const calls = totalCalls(gw);
    const cached = await loadMobileHome(client, { positions: 10, markets: 5 });
    expect(cached).toEqual(home);
    expect(totalCalls(gw)).toBe(calls);

    client.stop();
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });

  it('is refused a document outside the manifest: the gateway runs trusted documents only', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...gw.viewerHeaders },
      body: JSON.stringify({ query: '{ viewer { walletAddress } }' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('PERSISTED_QUERY_ONLY');
  });
});
