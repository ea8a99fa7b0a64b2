import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  BREAK,
  getNamedType,
  isInputObjectType,
  Kind,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Executes queries with `graphql-jit` (through `@envelop/graphql-jit`): each document is compiled
 * once into a function of its own, which costs far less CPU per request than graphql-js walking the
 * document every time (a page of 100 markets: about a quarter). What the compiled code does not do
 * keeps the regular executor: subscriptions and mutations, `@defer` / `@stream`, `@oneOf` inputs
 * (not checked by graphql-jit) and documents of several operations (the plugin keeps one compiled
 * operation per document, whatever `operationName` asks for). A document is compiled on its second
 * run, not its first: `compiled` is told, so the parse cache counts what the compiled code holds.
 */
export function useJitExecution(options: { compiled?: (document: DocumentNode) => void } = {}): Plugin {
  // Per parsed document (Yoga's parse cache hands out the same one for the same text): `false` once
  // run, then whether it compiles. A document run once (a distinct text, say) is never compiled: a
  // compiled function holds tens of kilobytes, far more than its document.
  const compilable = new WeakMap<DocumentNode, boolean>();
  const seen = new WeakSet<DocumentNode>();
  return useGraphQlJit(
    {},
    {
      enableIf: (args: ExecutionArgs) => {
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
      },
    },
  ) as Plugin;
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
