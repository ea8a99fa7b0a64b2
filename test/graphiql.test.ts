import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { DEMO_QUERY, DEV_HEADERS } from '../src/demo.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';
import { nodeListener } from '../src/node-http.js';

/** Debian's Chromium, driven by playwright-core (which never downloads a browser of its own). */
const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
const inCI = process.env['CI'] === 'true';
/** `GRAPHIQL_SCREENSHOT=docs/graphiql.png npx vitest run test/graphiql.test.ts` writes the README's picture of the page. */
const SCREENSHOT = process.env['GRAPHIQL_SCREENSHOT'];
if (!haveChromium && !inCI) console.warn(`test/graphiql.test.ts: skipped, no ${CHROMIUM} (apt-get install chromium)`);

describe.runIf(!haveChromium && inCI)('GraphiQL in a browser, in CI', () => {
  it('has a chromium to test with', () => {
    throw new Error(`${CHROMIUM} is not installed: .ci/run installs it from Debian packages; the offline GraphiQL test cannot run`);
  });
});

describe.runIf(haveChromium)('GraphiQL in a real browser, offline', () => {
  let gw: TestGateway;
  let server: Server;
  let base: string;
  let profile: string;
  let browser: BrowserContext;

  beforeAll(async () => {
    gw = await startTestGateway();
    // As `npm start` builds it: the demo query, with the demo subscriber's headers and X-Gateway-Debug filled in.
    const headers = { ...gw.viewerHeaders, ...DEV_HEADERS };
    const app = createApp({ config: gw.config, services: gw.services, graphiql: { defaultQuery: DEMO_QUERY, headers } });
    server = createServer(nodeListener(app.yoga));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    profile = mkdtempSync(join(tmpdir(), 'gateway-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    server?.close();
    await gw?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('loads with every request to this machine, runs the example operation and shows its data', async () => {
    const requested: string[] = [];
    browser.on('request', (request) => requested.push(request.url()));
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    if (SCREENSHOT) await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${base}/graphql`, { waitUntil: 'load' });
    await page.locator('.graphiql-execute-button').click({ timeout: 60_000 });
    // The response pane fills with the demo subscriber's wallet: data came back through the gateway.
    const wallet = gw.sim.alerts.demo.walletAddress;
    await page.waitForFunction(
      (expected) => document.querySelector('.graphiql-response')?.textContent?.includes(expected) ?? false,
      wallet,
      { timeout: 60_000 },
    );
    const response = (await page.locator('.graphiql-response').textContent()) ?? '';
    expect(response).toContain('totalValueUsd');
    expect(response).not.toContain('"errors"');
    if (SCREENSHOT) await page.screenshot({ path: join(fileURLToPath(new URL('..', import.meta.url)), SCREENSHOT) });
    // The upstream ledger shows under the data, in the result's extensions (read from GraphiQL's Monaco
    // models: the page renders only the lines in view).
    const whole = await page.evaluate(() => {
      const { __MONACO: monaco } = window as unknown as { __MONACO?: { editor: { getModels(): { uri: { path: string }; getValue(): string }[] } } };
      return monaco?.editor.getModels().map((m) => m.getValue()).join('\n') ?? '';
    });
    expect(whole).toMatch(/"extensions": \{\s*"upstream": \{/);
    expect(whole).toContain('GET /v0/positions/owners');
    expect(pageErrors).toEqual([]);

    // Scripts, styles and workers came from the gateway (or from blobs the page made), nothing from a CDN.
    const remote = requested.filter((url) => {
      const { protocol, hostname } = new URL(url);
      if (protocol === 'data:' || protocol === 'blob:') return false;
      return !['127.0.0.1', 'localhost', '[::1]'].includes(hostname);
    });
    expect(remote).toEqual([]);
    expect(requested.some((url) => url.startsWith(`${base}/graphql`))).toBe(true);
    await page.close();
  }, 180_000);
});
