import { isInterfaceType, type GraphQLSchema } from 'graphql';

/** A model's own concrete type name, or undefined when it does not say. */
export type TypeOfModel = (value: unknown) => string | undefined;

/**
 * Gives an interface whose every model carries its concrete type a `resolveType` that reads it at once.
 * The executor asks for every value of an interface (each position of a wallet, each market of a
 * page); Pothos's resolver first looks for a type brand up the value's prototype chain, then calls the
 * type's own `resolveType`, then normalizes the answer. Pothos's stays the fallback for a value its
 * model does not name. The printed schema does not change.
 */
export function resolveKnownTypes(schema: GraphQLSchema, known: Record<string, TypeOfModel>): GraphQLSchema {
  for (const [name, typeOf] of Object.entries(known)) {
    const type = schema.getType(name);
    const pothos = isInterfaceType(type) ? type.resolveType : undefined;
    if (!isInterfaceType(type) || !pothos) throw new Error(`${name}: not an interface with a resolveType`);
    type.resolveType = (value, context, info, abstract) => {
      const named = typeOf(value);
      return typeof named === 'string' ? named : pothos(value, context, info, abstract);
    };
  }
  return schema;
}
