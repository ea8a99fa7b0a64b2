import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { Context } from '../context.js';

/**
 * The one schema builder: plugins, scalars and the context type. Domain types live beside their root
 * fields in the folders of `schema/`, and `schema/index.ts` imports them all.
 *
 * Fields are nullable unless marked otherwise: a gateway over three upstreams must be able to null
 * the one field whose upstream failed and still deliver the rest of the response.
 */
export const builder = new SchemaBuilder<{
  Context: Context;
  DefaultFieldNullability: true;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [RelayPlugin, DataloaderPlugin],
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    edgesFieldOptions: { nullable: { list: false, items: false } },
    nodeFieldOptions: { nullable: false },
    // An id naming no Node object type (a forged or stale id, an interface name) is unknown: null, not an error.
    nodeQueryOptions: {
      resolve: (_root, args, _context, info, resolveNode) =>
        isNodeObject(info.schema, args.id.typename) ? resolveNode(args.id) : null,
    },
    nodesQueryOptions: {
      resolve: async (_root, args, _context, info, resolveNodes) => {
        const all = args.ids;
        const known = all.filter((id) => isNodeObject(info.schema, id.typename));
        // Pothos resolves `args.ids` itself; hand it only the ids it can resolve, then restore the order.
        (args as { ids: typeof all }).ids = known;
        const resolved = await resolveNodes(known);
        let next = 0;
        return all.map((id) => (isNodeObject(info.schema, id.typename) ? resolved[next++] : null));
      },
    },
  },
});

builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);

builder.queryType({ description: 'Everything a frontend reads: the viewer, wallets, markets and assets.' });
builder.mutationType({ description: 'Channel management, app subscriptions, the inbox and sending notifications.' });

function isNodeObject(schema: GraphQLSchema, typename: string): boolean {
  const type = schema.getType(typename);
  return isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node');
}
