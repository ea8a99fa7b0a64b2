import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSortedSchema } from '../src/schema/print.js';

describe('schema.graphql', () => {
  it('is in step with the code (run `npm run schema:print` when this fails)', () => {
    const committed = readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printSortedSchema());
  });
});
