import { GraphQLObjectType, GraphQLSchema, GraphQLString, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { inlineRelayProperties } from '../src/schema/inline-fields.js';
import { schema } from '../src/schema/index.js';

const fieldOf = (type: string, field: string) => {
  const named = schema.getType(type);
  if (!isObjectType(named)) throw new Error(`${type} is not an object type`);
  return named.getFields()[field]!;
};

describe('fields the compiled documents read inline (no resolver)', () => {
  it("has no resolver on any connection's edges and pageInfo, nor on an edge's node of an object type", () => {
    const resolved: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type)) continue;
      const relay = type.name.endsWith('Connection') ? ['edges', 'pageInfo'] : type.name.endsWith('Edge') ? ['node'] : [];
      for (const name of relay) if (type.getFields()[name]?.resolve) resolved.push(`${type.name}.${name}`);
    }
    // Markets and positions are interfaces: their edges' nodes keep the resolver.
    expect(resolved.sort()).toEqual(['MarketEdge.node', 'WalletPositionsEdge.node']);
    expect(fieldOf('AssetSearchEdge', 'node').resolve).toBeUndefined();
    expect(fieldOf('WalletPositionsConnection', 'edges').resolve).toBeUndefined();
  });

  it("exposes the models' own values of positions, channels, assets, freshness and connections' counts", () => {
    for (const [type, field] of [
      ['LendingPosition', 'type'],
      ['LendingPosition', 'side'],
      ['PredictionPosition', 'costBasis'],
      ['Channel', 'type'],
      ['Channel', 'subscribedApps'],
      ['WalletPositionsConnection', 'totalCount'],
      ['Asset', 'type'],
      ['Asset', 'freshness'],
      ['AssetPrice', 'freshness'],
      ['AssetPrice', 'updatedAt'],
      ['Freshness', 'source'],
      ['Freshness', 'asOf'],
    ] as const) {
      expect(fieldOf(type, field).resolve, `${type}.${field}`).toBeUndefined();
    }
  });

  it('keeps a resolver that does more than read the property of its name', () => {
    const edge = new GraphQLObjectType({
      name: 'ThingEdge',
      fields: {
        node: { type: GraphQLString, resolve: (parent: { node?: string }) => parent.node ?? 'none' },
        cursor: { type: GraphQLString, resolve: () => 'c' },
      },
    });
    const query = new GraphQLObjectType({ name: 'Query', fields: { edge: { type: edge } } });
    const inlined = inlineRelayProperties(new GraphQLSchema({ query }));
    const fields = (inlined.getType('ThingEdge') as GraphQLObjectType).getFields();
    expect(fields['node']!.resolve).toBeDefined();
    expect(fields['cursor']!.resolve).toBeDefined();
  });

  it("answers a subscribed app's name at once when its record has it, with no promise", () => {
    const name = fieldOf('SubscribedApp', 'name').resolve!;
    expect(name({ appId: 'a', name: 'Drift Protocol' }, {}, {}, undefined as never)).toBe('Drift Protocol');
  });
});
