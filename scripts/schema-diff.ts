import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, findBreakingChanges, findDangerousChanges, type BreakingChange, type DangerousChange } from 'graphql';

/**
 * `npm run schema:diff` (run by `npm test`): what `schema.graphql` changes for clients since the last
 * release, `schema/released.graphql`, by graphql-js's own judgement. A breaking change fails (exit 1,
 * one line naming each) unless `CHANGELOG.md`'s `## Unreleased` section lists it, i.e. holds its
 * description (`FIELD_REMOVED: Query.markets was removed.`): an acknowledged break is a decision, an
 * unlisted one an accident. Dangerous changes (an enum value or optional argument added ...) are
 * printed and pass.
 *
 * Options (for tests): `--released <file>`, `--current <file>`, `--changelog <file>`.
 */

export interface SchemaDiff {
  breaking: BreakingChange[];
  dangerous: DangerousChange[];
  /** The breaking changes the changelog's Unreleased section does not list. */
  unacknowledged: BreakingChange[];
}

/** One line for a change: its kind and graphql-js's description, e.g. `FIELD_REMOVED: Query.markets was removed.` */
export const describeChange = (change: BreakingChange | DangerousChange): string => `${change.type}: ${change.description}`;

/** The text of the `## Unreleased` section of a changelog (up to the next level-2 heading); empty when it has none. */
export function unreleasedSection(changelog: string): string {
  const match = /^## Unreleased[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  return match?.[1] ?? '';
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ').replace(/`/g, '').trim();

export function schemaDiff(released: string, current: string, changelog: string): SchemaDiff {
  const before = buildSchema(released);
  const after = buildSchema(current);
  const breaking = findBreakingChanges(before, after);
  const dangerous = findDangerousChanges(before, after);
  const listed = normalise(unreleasedSection(changelog));
  // A description ends with a full stop that a list item may leave out.
  const unacknowledged = breaking.filter((change) => !listed.includes(normalise(change.description).replace(/\.$/, '')));
  return { breaking, dangerous, unacknowledged };
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fileURLToPath(new URL(fallback, import.meta.url));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = {
    released: option('--released', '../schema/released.graphql'),
    current: option('--current', '../schema.graphql'),
    changelog: option('--changelog', '../CHANGELOG.md'),
  };
  const read = (file: string) => readFileSync(file, 'utf8');
  const diff = schemaDiff(read(files.released), read(files.current), read(files.changelog));
  for (const change of diff.dangerous) console.log(`dangerous: ${describeChange(change)}`);
  for (const change of diff.breaking.filter((c) => !diff.unacknowledged.includes(c))) console.log(`breaking, acknowledged in CHANGELOG.md: ${describeChange(change)}`);
  if (diff.unacknowledged.length > 0) {
    console.error(
      `schema.graphql breaks clients of schema/released.graphql in ${diff.unacknowledged.length} way(s); ` +
        "undo the change, or list each line below under CHANGELOG.md's `## Unreleased`:",
    );
    for (const change of diff.unacknowledged) console.error(describeChange(change));
    process.exit(1);
  }
  console.log(`schema diff: ${diff.breaking.length} breaking (all acknowledged), ${diff.dangerous.length} dangerous change(s) since schema/released.graphql.`);
}
