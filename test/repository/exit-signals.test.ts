import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { satisfies } from '../helpers/semver.js';

/**
 * Each dependency held back or replaced says when it can move: these cases fail the day what holds it
 * lets go (after `npm update` brings the new release into the lockfile). docs/dependencies.md lists them.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
type Manifest = { version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
const installed = (name: string) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as Manifest;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

/** The release vendor/promise-helpers republishes, and the packages that ask for ^1 and so take the copy. */
const PROMISE_HELPERS = '2.0.2';
const TAKE_THE_COPY = ['graphql-yoga', '@envelop/core'];

export const HELD_BACK = [
  { name: '@whatwg-node/promise-helpers', heldBy: TAKE_THE_COPY },
  { name: 'graphql', heldBy: ['@graphql-eslint/eslint-plugin'] },
  { name: 'typescript', heldBy: ['typescript-eslint'] },
];

describe('vendor/promise-helpers (2.0.2 republished as 1.3.2+…)', () => {
  it('is what the ^1 dependants get', () => {
    expect(pkg.dependencies['@whatwg-node/promise-helpers']).toBe('file:vendor/promise-helpers');
    expect(installed('@whatwg-node/promise-helpers').version).toBe(`1.3.2+handle-maybe-promise.${PROMISE_HELPERS}`);
    // The ranges that would end it: any that takes 2.0.2.
    expect(['^2.0.0', '^1.3.2 || ^2.0.0', '>=1.2.0'].map((range) => satisfies(PROMISE_HELPERS, range))).toEqual([true, true, true]);
  });

  it.each(TAKE_THE_COPY)('is still needed: %s does not accept promise-helpers 2 (when it does, drop the vendored copy)', (name) => {
    const range = installed(name).dependencies?.['@whatwg-node/promise-helpers'];
    expect(range, `${name} depends on @whatwg-node/promise-helpers`).toBeDefined();
    expect(satisfies(PROMISE_HELPERS, range!), `${name} asks for ${range}: remove vendor/promise-helpers (vendor/README.md)`).toBe(false);
  });
});

describe('graphql stays on 16', () => {
  it('because @graphql-eslint takes graphql 16 only (when it takes 17, move graphql)', () => {
    expect(pkg.dependencies['graphql']).toMatch(/^\^16\./);
    const range = installed('@graphql-eslint/eslint-plugin').peerDependencies!['graphql']!;
    expect(satisfies('17.0.0', range), `@graphql-eslint asks for graphql ${range}: graphql 17 can come`).toBe(false);
  });
});

describe('TypeScript stays on 6.0', () => {
  it('because typescript-eslint takes TypeScript below 6.1 (when it takes 6.1, move TypeScript)', () => {
    expect(pkg.devDependencies['typescript']).toMatch(/^~6\.0\./);
    const range = installed('typescript-eslint').peerDependencies!['typescript']!;
    expect(satisfies('6.0.3', range)).toBe(true);
    expect(satisfies('6.1.0', range), `typescript-eslint asks for typescript ${range}: TypeScript 6.1 can come`).toBe(false);
  });
});

describe('docs/dependencies.md', () => {
  const doc = readFileSync(join(root, 'docs/dependencies.md'), 'utf8');

  it.each(HELD_BACK)('names $name, what holds it, and the test that tells when it can move', ({ name, heldBy }) => {
    const section = doc.split(/^## /m).find((part) => part.startsWith(`\`${name}\``));
    expect(section, `a "## \`${name}\`" section`).toBeDefined();
    for (const holder of heldBy) expect(section).toContain(`\`${holder}\``);
    expect(section).toContain('test/repository/exit-signals.test.ts');
    expect(section).toMatch(/npm view \S+ (dependencies|peerDependencies)/);
  });
});
