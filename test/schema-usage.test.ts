import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema, Kind, parse, print, visit } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { coordinatesUsed } from '../scripts/schema-usage.js';

/** `npm run schema:diff` knows its clients: the registered documents each breaking change would break. */
const root = fileURLToPath(new URL('..', import.meta.url));
const schema = readFileSync(join(root, 'schema.graphql'), 'utf8');
const MANIFEST = 'examples/client/gql/persisted-documents.json';
const manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8')) as Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'schema-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const changelog = (unreleased: string) => `# Changelog\n\n## Unreleased\n\n${unreleased}\n\n## 0.1.0\n\nFirst release.\n`;

/** The check over a changed schema, with the registry as it is now and as it was at the release (the committed manifest unless given). */
function check(current: string, unreleased: string, documents = { current: MANIFEST, released: MANIFEST }) {
  const files = { released: join(dir, 'released.graphql'), current: join(dir, 'current.graphql'), changelog: join(dir, 'CHANGELOG.md') };
  writeFileSync(files.released, schema);
  writeFileSync(files.current, current);
  writeFileSync(files.changelog, changelog(unreleased));
  const args = ['--released', files.released, '--current', files.current, '--changelog', files.changelog, '--documents', documents.current, '--released-documents', documents.released];
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/schema-diff.ts', ...args], { cwd: root, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The schema with one field (or one argument of it) of an object type taken out. */
function without(typeName: string, fieldName: string, argument?: string): string {
  return print(
    visit(parse(schema), {
      FieldDefinition(node, _key, _parent, _path, ancestors) {
        const owner = ancestors.at(-1);
        if (!(owner && 'kind' in owner && owner.kind === Kind.OBJECT_TYPE_DEFINITION && owner.name.value === typeName && node.name.value === fieldName)) return undefined;
        return argument ? { ...node, arguments: node.arguments?.filter((a) => a.name.value !== argument) } : null;
      },
    }),
  );
}

const used = Object.values(manifest).map((document) => coordinatesUsed(buildSchema(schema), document));
const documentUsing = (coordinate: string) => Object.values(manifest).find((_, i) => used[i]!.has(coordinate))!;
const operationName = (document: string) => /^(?:query|mutation|subscription) (\w+)/.exec(document)![1]!;

describe('npm run schema:diff with registered documents', () => {
  it('reads the coordinates a document uses: fields, arguments and types', () => {
    const all = new Set(used.flatMap((set) => [...set]));
    for (const coordinate of ['Query.markets', 'Query.markets(first)', 'MarketConnection', 'Mutation.prepareEmailChannel']) expect(all.has(coordinate), coordinate).toBe(true);
  });

  it('fails when a removed field is one a registered document selects, naming that document, though CHANGELOG lists it', () => {
    const user = operationName(documentUsing('Query.markets'));
    const run = check(without('Query', 'markets'), '- FIELD_REMOVED: Query.markets was removed.');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`FIELD_REMOVED: Query.markets was removed. It breaks registered document(s): ${MANIFEST}#${user}`);
  });

  it('fails when a removed argument is one a registered document passes, naming it', () => {
    const run = check(without('Query', 'markets', 'first'), '- ARG_REMOVED: Query.markets arg first was removed.');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`ARG_REMOVED: Query.markets arg first was removed. It breaks registered document(s): ${MANIFEST}#${operationName(documentUsing('Query.markets(first)'))}`);
  });

  it('reports a break no registered document uses as safe to release (the changelog still lists it)', () => {
    const query = buildSchema(schema).getQueryType()!;
    const unused = Object.keys(query.getFields()).find((field) => !used.some((set) => set.has(`Query.${field}`)))!;
    expect(unused).toBeDefined();
    const run = check(without('Query', unused), `- FIELD_REMOVED: Query.${unused} was removed.`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`acknowledged in CHANGELOG.md: FIELD_REMOVED: Query.${unused} was removed. No registered document uses it: safe to release.`);
    expect(check(without('Query', unused), 'Nothing yet.').code).toBe(1);
  });

  it('lets the break through once the documents that used it have changed, and names them, when CHANGELOG lists it', () => {
    const users = Object.values(manifest).filter((_, i) => used[i]!.has('Query.markets'));
    expect(users.length).toBeGreaterThan(1);
    const changed = join(dir, 'persisted-documents.json');
    writeFileSync(changed, JSON.stringify(Object.fromEntries(Object.entries(manifest).filter(([, document]) => !users.includes(document)))));
    const documents = { current: changed, released: MANIFEST };
    const run = check(without('Query', 'markets'), '- FIELD_REMOVED: Query.markets was removed.', documents);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`have changed since: ${users.map((user) => `${MANIFEST}#${operationName(user)}`).join(', ')}.`);
    expect(check(without('Query', 'markets'), 'Nothing yet.', documents).code).toBe(1);
  });
});
