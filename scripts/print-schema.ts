import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSortedSchema } from '../src/schema/print.js';

/** `npm run schema:print` writes schema.graphql; `--check` fails when it is out of step with the code. */
const target = fileURLToPath(new URL('../schema.graphql', import.meta.url));
const printed = printSortedSchema();

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing counts as stale
  }
  if (current !== printed) {
    console.error('schema.graphql is stale: run `npm run schema:print` and commit it.');
    process.exit(1);
  }
  console.log('schema.graphql is up to date.');
} else {
  writeFileSync(target, printed);
  console.log(`wrote ${target}`);
}
