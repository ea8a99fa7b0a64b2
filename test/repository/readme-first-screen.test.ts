import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** What a newcomer sees before scrolling, and the pictures the README promises. */
const root = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const FIRST_SCREEN = readme.split('\n').slice(0, 40).join('\n');
const mermaid = [...readme.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the README', () => {
  it('says on its first screen what the gateway is, how to run and test it, and where to read next', () => {
    expect(FIRST_SCREEN).toMatch(/^# .*gateway/im);
    expect(FIRST_SCREEN).toContain('backend-for-frontend GraphQL gateway');
    expect(FIRST_SCREEN).toMatch(/^npm ci && npm start\b/m);
    expect(FIRST_SCREEN).toMatch(/^npm test\b/m);
    for (const next of ['(docs/upstream.md)', '(#deployment)', '(#configuration)']) expect(FIRST_SCREEN).toContain(next);
    // The Node versions story is below the fold.
    expect(FIRST_SCREEN).not.toContain('.nvmrc');
  });

  it('shows the GraphiQL screenshot the browser test takes, a PNG the repository holds', () => {
    const image = /!\[[^\]]+\]\((docs\/[\w-]+\.png)\)/.exec(FIRST_SCREEN)?.[1];
    expect(image).toBe('docs/graphiql.png');
    const png = readFileSync(join(root, image!));
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // IHDR: width and height, big-endian, at bytes 16 and 20.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1440, 900]);
    expect(readFileSync(join(root, 'test/graphiql.test.ts'), 'utf8')).toContain("process.env['GRAPHIQL_SCREENSHOT']");
  });

  it('draws the deployment (clients, proxy, replicas, the three upstreams, Redis, webhooks) and a request through the code', () => {
    const deployment = mermaid.find((chart) => chart.includes('webhooks'));
    expect(deployment).toBeDefined();
    for (const part of ['proxy', 'replicas', 'alerts', 'markets', 'assets', 'Redis']) expect(deployment, part).toContain(part);
    const request = mermaid.find((chart) => chart.includes('transport'));
    for (const part of ['node-http.ts', 'app.ts', 'schema/', 'sources/', 'stores/', 'upstream/']) expect(request, part).toContain(part);
    for (const chart of mermaid) expect(chart).toMatch(/^flowchart (LR|TD)\n/);
  });
});
