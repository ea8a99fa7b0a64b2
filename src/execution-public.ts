import { getOperationAST, Kind, OperationTypeNode, visit, type DocumentNode, type ExecutionResult, type FieldNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import type { Context } from './context.js';
import { heldLru } from './held.js';
import { documentPolicy } from './response-cache/policy.js';
import { taskNow } from './stores/clock.js';

/** What a compiled document offers (plugins/jit.ts `CompiledDocument`), restated here so the two modules need not import each other. */
export interface CompiledPart {
  query(root: unknown, context: unknown, variables: Record<string, unknown> | undefined): ExecutionResult | Promise<ExecutionResult>;
  stringify(value: unknown): string;
}

/**
 * A root field's answer is held only when every type it selects is market or asset metadata: the
 * market index and the asset cache keep those for many seconds, so a hold of at most a second adds
 * little age; prices, a caller's own data and freshness (which describes the very answer) are never held.
 */
const HOLDABLE_TTLS = { markets: 1, metadata: 1, prices: 0, private: 0 };
/** Longest key of variables held; a document asked with longer ones runs each time. */
const MAX_KEY_CHARS = 512;
/** Largest answer held, as JSON text: a held answer is a handful of markets, not a page of a hundred. */
const MAX_HELD_CHARS = 64 * 1024;
/** What every held answer together may take: the screens' documents hold a few kilobytes each. */
export const PUBLIC_SUBTREES_MAX_BYTES = 4 * 1024 * 1024;

/** A public part's answer, the time it began and the market index's build it read. */
interface Held {
  data: Record<string, unknown>;
  at: number;
  version: number;
  /** An estimate: the JSON text and the objects it was written from, each about its length. */
  bytes: number;
}

/**
 * Every split document's held answers, by the document's number and the variables' key: one bound in
 * bytes for the process however many documents are compiled, the oldest answers dropped first.
 */
const answers = heldLru(
  'public_subtrees',
  new LRUCache<string, Held>({ maxSize: PUBLIC_SUBTREES_MAX_BYTES, maxEntrySize: 2 * MAX_HELD_CHARS, sizeCalculation: (held) => held.bytes }),
);
let splits = 0;

/**
 * A query that asks for a caller's own data beside public data (MobileHome: the viewer, and the top
 * lending markets every user gets the same) never has its answer shared as a whole, so its public root
 * fields are executed per request though their answer is the same for everyone. Compiled apart, such
 * fields' answer is held for `PUBLIC_SUBTREE_HOLD_MS` by the document and the variables they read,
 * and for no longer than the market index's listing it read: the same data the stores would hand the
 * compiled code again, less the mapping and the resolvers. A request with a ledger or a freshness bound
 * runs them itself, as does any document whose root has fragments, directives or no private field.
 * Null when the document is not split: it is compiled whole.
 */
export function compileWithHeldPublicFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  compile: (document: DocumentNode) => CompiledPart,
): CompiledPart | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY || document.definitions.length !== 1) return null;
  const keys: string[] = [];
  const held: boolean[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return null;
    const key = selection.alias?.value ?? selection.name.value;
    if (keys.includes(key)) return null;
    keys.push(key);
    held.push(isHoldable(schema, operation, selection));
  }
  if (!held.includes(true) || !held.includes(false)) return null;
  const fields = operation.selectionSet.selections as readonly FieldNode[];
  const own = compile(partOf(operation, fields.filter((_, i) => !held[i])));
  const shared = compile(partOf(operation, fields.filter((_, i) => held[i])));
  const read = variablesRead(fields.filter((_, i) => held[i]));
  const id = `${++splits}\n`;

  const publicAnswer = (root: unknown, context: Context | undefined, variables: Record<string, unknown> | undefined): ExecutionResult | Promise<ExecutionResult> => {
    const holdMs = context?.services?.config.publicSubtreeHoldMs ?? 0;
    const index = context?.services?.marketIndex;
    const scope = context?.scope;
    if (holdMs <= 0 || !index || !scope || scope.ledger || scope.freshness) return shared.query(root, context, variables);
    const vars = keyOf(read, variables);
    if (vars === null) return shared.query(root, context, variables);
    const key = id + vars;
    const at = taskNow();
    const version = index.version();
    const kept = answers.get(key);
    if (kept && kept.version === version && at - kept.at < holdMs) return { data: kept.data };
    const ran = shared.query(root, context, variables);
    const hold = (result: ExecutionResult): ExecutionResult => {
      const chars = !result.errors?.length && result.data ? textsOf(result.data) : -1;
      if (chars >= 0) answers.set(key, { data: result.data!, at, version, bytes: 2 * chars + key.length });
      return result;
    };
    return ran instanceof Promise ? ran.then(hold) : hold(ran);
  };

  return {
    query(root, context, variables) {
      const mine = own.query(root, context, variables);
      const theirs = publicAnswer(root, context as Context | undefined, variables);
      if (!(theirs instanceof Promise)) return mine instanceof Promise ? mine.then((a) => merged(keys, held, a, theirs)) : merged(keys, held, mine, theirs);
      return Promise.all([mine, theirs]).then(([a, b]) => merged(keys, held, a, b));
    },
    stringify: stringifyHeld,
  };
}

/** The JSON text of each held root field's answer, written once when it is held: a held answer is serialized once, not per request. */
const texts = new WeakMap<object, string>();

/** Notes the text of each field of a public part's data; its length, or -1 (nothing noted) when it is too large to hold. */
function textsOf(data: Record<string, unknown>): number {
  const made: [object, string][] = [];
  let chars = 0;
  for (const key in data) {
    const value = data[key];
    if (typeof value !== 'object' || value === null) continue;
    const text = JSON.stringify(value);
    chars += text.length;
    if (chars > MAX_HELD_CHARS) return -1;
    made.push([value, text]);
  }
  for (const [value, text] of made) texts.set(value, text);
  return chars;
}

/**
 * `JSON.stringify` of a result, with the text of a held answer written in its place. Only a result
 * of data alone (the compiled serializer beside it is a function, which JSON leaves out) is written
 * by hand; any other goes to `JSON.stringify` whole. The bytes are the same either way.
 */
function stringifyHeld(result: unknown): string {
  const { data } = result as { data?: Record<string, unknown> | null };
  if (!data || !onlyData(result as object)) return JSON.stringify(result);
  let text = '{"data":{';
  let first = true;
  for (const key in data) {
    const value = data[key];
    // JSON.stringify answers undefined for what JSON leaves out (undefined, a function).
    const written: string | undefined = (typeof value === 'object' && value !== null ? texts.get(value) : undefined) ?? JSON.stringify(value);
    if (written === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${written}`;
    first = false;
  }
  return `${text}}}`;
}

/** Whether a result's only member JSON writes is `data` (JSON leaves out functions and undefined members). */
function onlyData(result: object): boolean {
  for (const key in result) {
    const value = (result as Record<string, unknown>)[key];
    if (key !== 'data' && value !== undefined && typeof value !== 'function') return false;
  }
  return true;
}

/** Whether a root field's answer may be held: every type it selects public market or asset data. */
function isHoldable(schema: GraphQLSchema, operation: OperationDefinitionNode, field: FieldNode): boolean {
  const policy = documentPolicy(schema, partOf(operation, [field]), HOLDABLE_TTLS);
  return policy !== null && policy.scope === 'PUBLIC' && policy.ttlMs > 0;
}

/** The operation with only `fields` at its root, every variable definition kept (coerced the same in both parts). */
function partOf(operation: OperationDefinitionNode, fields: readonly FieldNode[]): DocumentNode {
  return { kind: Kind.DOCUMENT, definitions: [{ ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections: fields } }] };
}

/** The variables the held fields read, by name, in the order first met. */
function variablesRead(fields: readonly FieldNode[]): string[] {
  const names: string[] = [];
  for (const field of fields) {
    visit(field, {
      Variable: (node) => {
        if (!names.includes(node.name.value)) names.push(node.name.value);
      },
    });
  }
  return names;
}

/** The held answer's key: each variable read as sent (an absent one apart from an explicit null); null when too long to hold. */
function keyOf(names: readonly string[], variables: Record<string, unknown> | undefined): string | null {
  let key = '';
  for (const name of names) {
    const value = variables && Object.hasOwn(variables, name) ? JSON.stringify(variables[name]) : '-';
    key += `${value}\n`;
    if (key.length > MAX_KEY_CHARS) return null;
  }
  return key;
}

/** The two parts' answers as one, its root fields in the document's order. */
function merged(keys: readonly string[], held: readonly boolean[], own: ExecutionResult, shared: ExecutionResult): ExecutionResult {
  // Variables that do not coerce fail both parts alike: one answer says so.
  if (!('data' in own)) return own;
  const errors = own.errors?.length ? (shared.errors?.length ? [...own.errors, ...shared.errors] : own.errors) : shared.errors;
  let data: Record<string, unknown> | null = null;
  if (own.data && shared.data) {
    data = {};
    for (let i = 0; i < keys.length; i++) data[keys[i]!] = (held[i] ? shared.data : own.data)[keys[i]!];
  }
  return errors?.length ? { data, errors } : { data };
}
