import {
  BREAK,
  getNamedType,
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  isInputObjectType,
  Kind,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import { compileQuery, isCompiledQuery } from './graphql-jit.js';
import { compileWithHeldPublicFields } from '../execution-public.js';
import { makeExecute, type Plugin } from 'graphql-yoga';

/** What the compiled code of one document runs, and the serializer it compiled for the result's shape. */
export type CompiledDocument = Pick<CompiledQuery, 'query' | 'stringify'>;

/** The gateway's compiled documents: the plugin and the direct path (src/direct/) run the same ones. */
export interface CompiledDocuments {
  /** The compiled code of a document run before, or undefined when it is not compiled (yet, or ever). */
  get(document: DocumentNode): CompiledDocument | undefined;
}

/**
 * Executes queries with `graphql-jit`: each document is compiled
 * once into a function of its own, which costs far less CPU per request than graphql-js walking the
 * document every time (a page of 100 markets: about a quarter). What the compiled code does not do
 * keeps the regular executor: subscriptions and mutations, `@defer` / `@stream`, `@oneOf` inputs
 * (not checked by graphql-jit) and documents of several operations (the plugin keeps one compiled
 * operation per document, whatever `operationName` asks for). A document is compiled on its second
 * run, not its first: `compiled` is told, so the parse cache counts what the compiled code holds.
 */
export function useJitExecution(options: { compiled?: (document: DocumentNode) => void } = {}): Plugin & { compiledDocuments: CompiledDocuments } {
  // Per parsed document (Yoga's parse cache hands out the same one for the same text): `false` once
  // run, then whether it compiles. A document run once (a distinct text, say) is never compiled: a
  // compiled function holds tens of kilobytes, far more than its document.
  const compilable = new WeakMap<DocumentNode, boolean>();
  const seen = new WeakSet<DocumentNode>();
  const compiledByDocument = new WeakMap<DocumentNode, CompiledDocument>();
  const enabled = (args: ExecutionArgs): boolean => {
    if (!seen.has(args.document)) {
      seen.add(args.document);
      return false;
    }
    let known = compilable.get(args.document);
    if (known === undefined) {
      compilable.set(args.document, (known = canCompile(args.schema, args.document)));
      if (known) options.compiled?.(args.document);
    }
    return known;
  };
  // Kept per document where the direct path (src/direct/) finds it too.
  const compiledOf = (args: ExecutionArgs): CompiledDocument => {
    let compiled = compiledByDocument.get(args.document);
    if (!compiled) compiledByDocument.set(args.document, (compiled = compileDocument(args.schema, args.document, args.operationName)));
    return compiled;
  };
  const execute = makeExecute((args) => runCompiled(compiledOf(args), args.contextValue, args.variableValues as Record<string, unknown> | undefined));
  return {
    onExecute({ args, setExecuteFn }) {
      if (enabled(args)) setExecuteFn(execute);
    },
    compiledDocuments: { get: (document) => compiledByDocument.get(document) },
  };
}

const MAX_INT = 2 ** 31 - 1;
const MIN_INT = -(2 ** 31);

/**
 * The built-in scalars' serializers, a value already of the scalar's own kind first: graphql-js returns
 * such a value unchanged, so only other values go through its checks and coercions (the same errors).
 * The compiled code calls one per leaf of a result; graphql-jit's default wraps graphql-js's in a closure.
 */
const LEAF_SERIALIZERS: Record<string, (value: unknown) => unknown> = {
  String: (value) => (typeof value === 'string' ? value : GraphQLString.serialize(value)),
  ID: (value) => (typeof value === 'string' ? value : GraphQLID.serialize(value)),
  Boolean: (value) => (typeof value === 'boolean' ? value : GraphQLBoolean.serialize(value)),
  Float: (value) => (typeof value === 'number' && Number.isFinite(value) ? value : GraphQLFloat.serialize(value)),
  Int: (value) => (typeof value === 'number' && Number.isInteger(value) && value <= MAX_INT && value >= MIN_INT ? value : GraphQLInt.serialize(value)),
};

/** A document compiled with graphql-jit's defaults but the leaves' serializers; what fails to compile answers its errors. */
export function compileDocument(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): CompiledDocument {
  const split = compileWithHeldPublicFields(schema, document, operationName, (part) => compileWhole(schema, part));
  return (split as CompiledDocument | null) ?? compileWhole(schema, document, operationName);
}

function compileWhole(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): CompiledDocument {
  const made = compileQuery(schema, document, operationName ?? undefined, { customSerializers: LEAF_SERIALIZERS });
  return isCompiledQuery(made) ? made : { query: () => made, stringify: (value: unknown) => JSON.stringify(value) };
}

/** Runs a compiled document: its result carries the compiled serializer, which Yoga's result processing uses. */
export async function runCompiled(compiled: CompiledDocument, context: unknown, variables: Record<string, unknown> | undefined): Promise<ExecutionResult> {
  const result = (await compiled.query(undefined, context, variables)) as ExecutionResult & { stringify?: (value: unknown) => string };
  result.stringify = compiled.stringify;
  return result;
}

function canCompile(schema: GraphQLSchema, document: DocumentNode): boolean {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1 || operations[0]!.operation !== OperationTypeNode.QUERY) return false;
  const typeInfo = new TypeInfo(schema);
  let compiles = true;
  const refuse = () => {
    compiles = false;
    return BREAK;
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Directive: (node) => (node.name.value === 'defer' || node.name.value === 'stream' ? refuse() : undefined),
      Argument: () => (reachesOneOf(typeInfo.getInputType()) ? refuse() : undefined),
      VariableDefinition: () => (reachesOneOf(typeInfo.getInputType()) ? refuse() : undefined),
    }),
  );
  return compiles;
}

/** Whether an input type is, or holds at any depth, a `@oneOf` input object. */
function reachesOneOf(type: GraphQLInputType | null | undefined, seen = new Set<string>()): boolean {
  const named = type ? getNamedType(type) : undefined;
  if (!named || !isInputObjectType(named) || seen.has(named.name)) return false;
  if (named.isOneOf) return true;
  seen.add(named.name);
  return Object.values(named.getFields()).some((field) => reachesOneOf(field.type, seen));
}
