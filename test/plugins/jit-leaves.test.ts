import { execute, GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLList, GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type GraphQLOutputType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compileDocument, runCompiled } from '../../src/plugins/jit.js';

/** Values a model could hold for a leaf: of the scalar's own kind, coercible, and refused. */
const VALUES: unknown[] = ['text', '', '42', 42, -0, 1.5, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, Number.NaN, Infinity, true, false, 12n, { valueOf: () => 7 }, { toJSON: () => 'j' }, [], {}, Symbol('s')];
const SCALARS: [string, GraphQLOutputType][] = [
  ['string', GraphQLString],
  ['id', GraphQLID],
  ['int', GraphQLInt],
  ['float', GraphQLFloat],
  ['boolean', GraphQLBoolean],
];

const Item = new GraphQLObjectType({
  name: 'Item',
  fields: Object.fromEntries(SCALARS.map(([name, type]) => [name, { type }])),
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: {
      items: {
        type: new GraphQLList(Item),
        resolve: () => VALUES.map((value) => Object.fromEntries(SCALARS.map(([name]) => [name, value]))),
      },
    },
  }),
});

describe("compiled documents' leaves", () => {
  it('serialize every value as graphql-js does: the same data, and the same errors at the same paths', async () => {
    const document = parse(`{ items { ${SCALARS.map(([name]) => name).join(' ')} } }`);
    const compiled = await runCompiled(compileDocument(schema, document), {}, {});
    const expected = await execute({ schema, document });
    expect(compiled.data).toEqual(expected.data);
    const errorsOf = (errors: readonly { message: string; path?: readonly (string | number)[] }[] = []) =>
      errors.map((error) => `${error.path?.join('.')}: ${error.message}`).sort();
    expect(errorsOf(compiled.errors)).toEqual(errorsOf(expected.errors));
    expect(compiled.errors?.length).toBeGreaterThan(20);
  });
});
