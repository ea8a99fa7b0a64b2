import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSchema, findBreakingChanges, findDangerousChanges, type BreakingChange, type DangerousChange } from 'graphql';
import { changedCoordinates, coordinatesUsed, loadDocuments, registeredPaths, releasedDocuments, type RegisteredDocument } from './schema-usage.js';

/**
 * `npm run schema:diff` (run by `npm test`): what `schema.graphql` changes for clients since the last
 * release, `schema/released.graphql`, by graphql-js's own judgement. A breaking change fails (exit 1,
 * one line naming each) unless `CHANGELOG.md`'s `## Unreleased` section lists it, i.e. holds its
 * description (`FIELD_REMOVED: Query.markets was removed.`): an acknowledged break is a decision, an
 * unlisted one an accident. Dangerous changes (an enum value or optional argument added ...) are
 * printed and pass.
 *
 * Each breaking change also names the registered client documents (the trusted documents manifest and
 * `examples/`, schema-usage.ts) that use what it changes. One that a registered document uses fails even
 * when the changelog lists it: in production only those documents run, and that one would stop. A
 * document that used it at the release (the commit that wrote `schema/released.graphql`) and has changed
 * since no longer holds the break back; one no document uses is reported safe to release.
 *
 * Options (for tests): `--released <file>`, `--current <file>`, `--changelog <file>`, and
 * `--documents` / `--released-documents <file,file|none>` (the registry now and at the release).
 */

export interface SchemaDiff {
  breaking: BreakingChange[];
  dangerous: DangerousChange[];
  /** The breaking changes the changelog's Unreleased section does not list. */
  unacknowledged: BreakingChange[];
  /** Per breaking change, the registered documents using what it changes, now and at the release (null: not read). */
  usage: Map<BreakingChange, { current: string[]; released: string[] } | null>;
}

export interface Registry {
  current: RegisteredDocument[];
  released: RegisteredDocument[];
}

/** What each breaking change touches: the documents whose coordinates (read against the released schema) include one it names. */
function usageOf(breaking: BreakingChange[], before: ReturnType<typeof buildSchema>, registry: Registry): SchemaDiff['usage'] {
  const read = (documents: RegisteredDocument[]) => documents.map((d) => ({ name: d.name, used: coordinatesUsed(before, d.text) }));
  const [current, released] = [read(registry.current), read(registry.released)];
  return new Map(
    breaking.map((change) => {
      const coordinates = changedCoordinates(change);
      if (!coordinates) return [change, null];
      const users = (documents: typeof current) => documents.filter((d) => coordinates.some((c) => d.used.has(c))).map((d) => d.name);
      return [change, { current: users(current), released: users(released) }];
    }),
  );
}

/** Why a breaking change fails or passes, in words, after its description. */
export function verdict(diff: SchemaDiff, change: BreakingChange): { fails: boolean; line: string } {
  const usage = diff.usage.get(change);
  const listed = !diff.unacknowledged.includes(change);
  if (usage && usage.current.length > 0) return { fails: true, line: `${describeChange(change)} It breaks registered document(s): ${usage.current.join(', ')}.` };
  const changed = usage?.released.length ? ` Registered document(s) that used it at the release have changed since: ${usage.released.join(', ')}.` : '';
  const safe = usage && !changed ? ' No registered document uses it: safe to release.' : '';
  const unread = usage ? '' : ' Its usage was not analysed.';
  return { fails: !listed, line: `${listed ? 'breaking, acknowledged in CHANGELOG.md: ' : ''}${describeChange(change)}${safe}${changed}${unread}` };
}

/** One line for a change: its kind and graphql-js's description, e.g. `FIELD_REMOVED: Query.markets was removed.` */
export const describeChange = (change: BreakingChange | DangerousChange): string => `${change.type}: ${change.description}`;

/** The text of the `## Unreleased` section of a changelog (up to the next level-2 heading); empty when it has none. */
export function unreleasedSection(changelog: string): string {
  const match = /^## Unreleased[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(changelog);
  return match?.[1] ?? '';
}

const normalise = (text: string): string => text.replace(/\s+/g, ' ').replace(/`/g, '').trim();

export function schemaDiff(released: string, current: string, changelog: string, registry: Registry = { current: [], released: [] }): SchemaDiff {
  const before = buildSchema(released);
  const after = buildSchema(current);
  const breaking = findBreakingChanges(before, after);
  const dangerous = findDangerousChanges(before, after);
  const listed = normalise(unreleasedSection(changelog));
  // A description ends with a full stop that a list item may leave out.
  const unacknowledged = breaking.filter((change) => !listed.includes(normalise(change.description).replace(/\.$/, '')));
  return { breaking, dangerous, unacknowledged, usage: usageOf(breaking, before, registry) };
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fileURLToPath(new URL(fallback, import.meta.url));
}

function documentsOption(name: string, fallback: () => RegisteredDocument[]): RegisteredDocument[] {
  const i = process.argv.indexOf(name);
  if (i < 0 || !process.argv[i + 1]) return fallback();
  return process.argv[i + 1] === 'none' ? [] : loadDocuments(process.argv[i + 1]!.split(','), process.cwd());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = {
    released: option('--released', '../schema/released.graphql'),
    current: option('--current', '../schema.graphql'),
    changelog: option('--changelog', '../CHANGELOG.md'),
  };
  const registry = {
    current: documentsOption('--documents', () => loadDocuments(registeredPaths(root), root)),
    released: documentsOption('--released-documents', () => releasedDocuments(registeredPaths(root), root)),
  };
  const read = (file: string) => readFileSync(file, 'utf8');
  const diff = schemaDiff(read(files.released), read(files.current), read(files.changelog), registry);
  for (const change of diff.dangerous) console.log(`dangerous: ${describeChange(change)}`);
  const verdicts = diff.breaking.map((change) => verdict(diff, change));
  for (const { line } of verdicts.filter((v) => !v.fails)) console.log(line);
  const failing = verdicts.filter((v) => v.fails);
  if (failing.length > 0) {
    console.error(
      `schema.graphql breaks clients of schema/released.graphql in ${failing.length} way(s). Undo the change; or change the ` +
        "registered documents that use it, and list each line below under CHANGELOG.md's `## Unreleased`:",
    );
    for (const { line } of failing) console.error(line);
    process.exit(1);
  }
  console.log(
    `schema diff: ${diff.breaking.length} breaking (all acknowledged, none used by the ${registry.current.length} registered documents), ` +
      `${diff.dangerous.length} dangerous change(s) since schema/released.graphql.`,
  );
}
