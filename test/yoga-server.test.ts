import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

/**
 * src/yoga-server.ts is Yoga's `createYoga` with one more option for the server adapter. This fails on
 * the day an upgrade of graphql-yoga changes what `createYoga` passes, so the copy follows it, and when
 * Yoga and the gateway would load two copies of @whatwg-node/server.
 */
describe("the gateway's copy of createYoga", () => {
  it('passes what the installed Yoga passes, to the one @whatwg-node/server Yoga uses', () => {
    const yogaRoot = join(dirname(require.resolve('graphql-yoga')), '..');
    const source = readFileSync(join(yogaRoot, 'esm/server.js'), 'utf8');
    const createYoga = /export function createYoga\(options\) \{([\s\S]*?)\n\}/.exec(source)?.[1];
    expect(createYoga?.replace(/\s+/g, ' ').trim()).toBe(
      "const server = new YogaServer(options); return createServerAdapter(server, { fetchAPI: server.fetchAPI, plugins: server['plugins'], disposeOnProcessTerminate: options.disposeOnProcessTerminate, });",
    );
    const yogaRequire = createRequire(join(yogaRoot, 'package.json'));
    expect(yogaRequire.resolve('@whatwg-node/server')).toBe(require.resolve('@whatwg-node/server'));
  });
});
