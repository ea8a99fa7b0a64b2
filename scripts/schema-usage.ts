import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import {
  getNamedType,
  Kind,
  parse,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type BreakingChange,
  type GraphQLSchema,
} from 'graphql';

/**
 * Which registered client documents a schema change touches, as GraphOS operation checks and Hive's
 * usage-based checks tell it: every schema coordinate a document uses (`Type`, `Type.field`,
 * `Type.field(arg)`, `Enum.VALUE`), read with graphql-js's TypeInfo against the released schema, and the
 * coordinate each breaking change names.
 */

export interface RegisteredDocument {
  /** Where it is registered, and its operation: `examples/client/gql/persisted-documents.json#MarketsPage`. */
  name: string;
  text: string;
}

/** The registered documents: the trusted documents manifest (`{ hash: document }`) and `.graphql` files, one document per operation. */
export function loadDocuments(paths: string[], root: string, readText = (path: string) => readFileSync(resolve(root, path), 'utf8')): RegisteredDocument[] {
  const documents: RegisteredDocument[] = [];
  for (const path of paths) {
    const texts = path.endsWith('.json') ? Object.values(JSON.parse(readText(path)) as Record<string, string>) : [readText(path)];
    for (const text of texts) {
      const ast = parse(text);
      const names = ast.definitions.flatMap((d) => (d.kind === Kind.OPERATION_DEFINITION ? [d.name?.value ?? 'anonymous'] : []));
      documents.push({ name: `${path}#${names.join(',')}`, text });
    }
  }
  return documents;
}

/** The default registry: the manifest codegen writes, and every `.graphql` file under examples/. */
export function registeredPaths(root: string): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.graphql') ? [join(folder, entry.name)] : [],
    );
  const manifest = 'examples/client/gql/persisted-documents.json';
  return [...(existsSync(join(root, manifest)) ? [manifest] : []), ...(existsSync(join(root, 'examples')) ? walk('examples') : [])];
}

/**
 * The registered documents as they were at the release: the files at the commit that last wrote
 * `schema/released.graphql`. Empty without git history (a tarball): then no document counts as changed.
 */
export function releasedDocuments(paths: string[], root: string): RegisteredDocument[] {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const release = git('log', '-1', '--format=%H', '--', 'schema/released.graphql').trim();
    if (!release) return [];
    const present = paths.filter((path) => git('ls-tree', '--name-only', release, '--', relative(root, join(root, path))).trim());
    return loadDocuments(present, root, (path) => git('show', `${release}:${path}`));
  } catch {
    return [];
  }
}

/** Every schema coordinate a document uses, read against `schema` (unknown fields are skipped, not errors). */
export function coordinatesUsed(schema: GraphQLSchema, text: string): Set<string> {
  const used = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  const useType = (type: Parameters<typeof getNamedType>[0] | null | undefined) => {
    const named = type ? getNamedType(type) : null;
    if (named) used.add(named.name);
  };
  visit(
    parse(text),
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        if (!parent) return;
        const field = `${parent.name}.${node.name.value}`;
        used.add(field);
        useType(typeInfo.getType());
        for (const argument of node.arguments ?? []) used.add(`${field}(${argument.name.value})`);
      },
      Argument() {
        useType(typeInfo.getInputType());
      },
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        if (parent) used.add(`${getNamedType(parent).name}.${node.name.value}`);
        useType(typeInfo.getInputType());
      },
      EnumValue(node) {
        const type = typeInfo.getInputType();
        if (type) used.add(`${getNamedType(type).name}.${node.value}`);
      },
      VariableDefinition() {
        useType(typeInfo.getInputType());
      },
      InlineFragment() {
        useType(typeInfo.getType());
      },
      FragmentDefinition() {
        useType(typeInfo.getType());
      },
    }),
  );
  return used;
}

/** graphql-js's descriptions of breaking changes, read back into the coordinates whose users they break. */
const CHANGE_COORDINATES: [RegExp, (m: RegExpExecArray) => string[]][] = [
  [/^A required arg \w+ on (\w+)\.(\w+) was added\.$/, (m) => [`${m[1]}.${m[2]}`]],
  [/^A required field \w+ on input type (\w+) was added\.$/, (m) => [m[1]!]],
  [/^(\w+)\.(\w+) arg (\w+) (?:was removed|has changed type)/, (m) => [`${m[1]}.${m[2]}(${m[3]})`]],
  [/^(\w+)\.(\w+) (?:was removed|changed type)/, (m) => [`${m[1]}.${m[2]}`]],
  [/^(\w+) was removed from enum type (\w+)\.$/, (m) => [`${m[2]}.${m[1]}`]],
  [/^(\w+) was removed from union type (\w+)\.$/, (m) => [m[1]!]],
  [/^(\w+) no longer implements interface (\w+)\.$/, (m) => [m[1]!]],
  [/^(\w+) (?:was removed|changed from)/, (m) => [m[1]!]],
];

/** The coordinates a breaking change breaks, or null when its description is not one read here. */
export function changedCoordinates(change: BreakingChange): string[] | null {
  for (const [pattern, coordinates] of CHANGE_COORDINATES) {
    const match = pattern.exec(change.description);
    if (match) return coordinates(match);
  }
  return null;
}
