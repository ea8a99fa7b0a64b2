import { getNamedType, isAbstractType, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';

/** The relay plugin's fields that read the parent's property of their own name: a connection's `edges` and `pageInfo`, an edge's `node`. */
const RELAY_PROPERTY_FIELDS: readonly string[] = ['edges', 'pageInfo', 'node'];

/**
 * Takes the relay plugin's resolvers off the connection and edge fields that only read the parent's
 * property of the field's name (`(parent) => parent.node`). graphql-jit reads a field without a
 * resolver inline in its compiled function; a resolver is a call with a resolve info, an arguments
 * object and a path for every value (every edge of every page). graphql-js's default resolver reads
 * the same property. A resolver is taken off only when it answers probe parents as that read would,
 * so a connection or edge field with a resolver of its own keeps it, and an edge's node of an interface
 * keeps it too (below). The printed schema does not change.
 */
export function inlineRelayProperties(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || !(type.name.endsWith('Connection') || type.name.endsWith('Edge'))) continue;
    for (const field of Object.values(type.getFields())) {
      if (!RELAY_PROPERTY_FIELDS.includes(field.name) || field.args.length > 0 || !field.resolve) continue;
      // An interface's value read inline lands its whole type switch in the list item's own compiled
      // function, which ran slower than the same code behind the resolver (the markets page, bench/PHASES.md).
      if (isAbstractType(getNamedType(field.type))) continue;
      if (readsProperty(field.resolve, field.name)) field.resolve = undefined;
    }
  }
  return schema;
}

/** Whether a resolver of the parent alone hands back, unchanged, whatever the parent holds under `name`. */
function readsProperty(resolve: GraphQLFieldResolver<unknown, unknown>, name: string): boolean {
  if (resolve.length > 1) return false;
  const probes: unknown[] = [{}, [], null, undefined, '', 0, false];
  try {
    return probes.every((probe) => resolve({ [name]: probe }, {}, {}, undefined as never) === probe);
  } catch {
    return false;
  }
}
