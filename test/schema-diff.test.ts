import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kind, parse, print, visit } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';

/** `scripts/schema-diff.ts` as `npm test` runs it, over temporary copies of the schema and the changelog. */
const root = fileURLToPath(new URL('..', import.meta.url));
const schema = readFileSync(join(root, 'schema.graphql'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'schema-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Registered documents now and at the release (`--documents`, `--released-documents`): none unless a test names them. */
function check(current: string, changelog: string, documents = { current: 'none', released: 'none' }) {
  const files = { released: join(dir, 'released.graphql'), current: join(dir, 'current.graphql'), changelog: join(dir, 'CHANGELOG.md') };
  writeFileSync(files.released, schema);
  writeFileSync(files.current, current);
  writeFileSync(files.changelog, changelog);
  const run = spawnSync(
    process.execPath,
    [
      ...['--import', 'tsx', 'scripts/schema-diff.ts', '--released', files.released, '--current', files.current, '--changelog', files.changelog],
      ...['--documents', documents.current, '--released-documents', documents.released],
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The schema with one field of one type taken out. */
function without(typeName: string, fieldName: string): string {
  return print(
    visit(parse(schema), {
      FieldDefinition(node, _key, _parent, _path, ancestors) {
        const owner = ancestors.at(-1);
        const ownerName = owner && 'kind' in owner && owner.kind === Kind.OBJECT_TYPE_DEFINITION ? owner.name.value : null;
        return ownerName === typeName && node.name.value === fieldName ? null : undefined;
      },
    }),
  );
}

const changelog = (unreleased: string) => `# Changelog\n\n## Unreleased\n\n${unreleased}\n\n## 0.1.0 (2026-11-26)\n\nFirst release.\n`;

describe('npm run schema:diff', () => {
  it('passes on the committed schema: schema.graphql against schema/released.graphql and CHANGELOG.md', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/schema-diff.ts'], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('fails naming the field when one is removed, and passes once Unreleased lists it', () => {
    const current = without('Query', 'markets');
    expect(current).not.toMatch(/^\s+markets\(/m);

    const refused = check(current, changelog('Nothing yet.'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('FIELD_REMOVED: Query.markets was removed.');

    // Listed under an older release does not count: only Unreleased acknowledges.
    const elsewhere = check(current, `# Changelog\n\n## Unreleased\n\n## 0.1.0\n\n- FIELD_REMOVED: Query.markets was removed.\n`);
    expect(elsewhere.code).toBe(1);

    const acknowledged = check(current, changelog('- FIELD_REMOVED: Query.markets was removed (use `marketsV2`).'));
    expect(acknowledged.stderr).toBe('');
    expect(acknowledged.code).toBe(0);
    expect(acknowledged.stdout).toContain('acknowledged in CHANGELOG.md: FIELD_REMOVED: Query.markets was removed.');
  });

  it('prints dangerous changes and passes', () => {
    const current = schema.replace(/^enum Resolution \{\n/m, (head) => `${head}  """Four hours."""\n  FOUR_HOURS\n\n`);
    expect(current).not.toBe(schema);
    const run = check(current, changelog('Nothing yet.'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('dangerous: VALUE_ADDED_TO_ENUM: FOUR_HOURS was added to enum type Resolution.');
  });
});
