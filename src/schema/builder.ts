import SchemaBuilder, { brandWithType } from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import RelayPlugin from '@pothos/plugin-relay';
import SyncGlobalIdsPlugin from './sync-global-ids.js';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { isObjectType, type GraphQLSchema } from 'graphql';
import { DateTimeResolver, JSONResolver } from './scalars.js';
import type { Context } from '../context.js';
import { badUserInput } from '../errors.js';
import { lengthCost, UNPAGINATED_LIST_BOUND } from './common/cost.js';

/** Ids one `nodes(ids:)` takes at most: each may cost an upstream call. */
export const MAX_NODES = 100;

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
  plugins: [RelayPlugin, ComplexityPlugin, SyncGlobalIdsPlugin],
  // Field costs only: the limit is enforced once per operation, before execution, by plugins/query-cost.ts.
  complexity: { defaultComplexity: 0, defaultListMultiplier: UNPAGINATED_LIST_BOUND, disabled: true },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // The connection field multiplies by its page size (schema/common/cost.ts): edges add no second factor.
    edgesFieldOptions: {
      nullable: { list: false, items: false },
      description: 'The items of this page, each with its cursor.',
      complexity: { field: 0, multiplier: 1 },
    },
    nodeFieldOptions: { nullable: false, description: 'The item at the end of the edge.' },
    idFieldOptions: { description: 'Opaque global id: pass it to `node(id:)` to fetch this object again.' },
    cursorFieldOptions: { description: 'Opaque cursor of this edge: pass it as `after` to continue after it.' },
    pageInfoFieldOptions: { description: 'Where this page sits in the whole list.' },
    pageInfoTypeOptions: { description: 'Relay page information.' },
    nodeTypeOptions: { description: 'An object with a global id, fetchable with `node(id:)`.' },
    hasNextPageFieldOptions: { description: 'Whether more items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether items precede this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first edge of this page.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge of this page: pass it as `after` for the next page.' },
    firstArgOptions: { description: 'How many items to return (each list says its maximum).' },
    afterArgOptions: { description: 'Return the items after this cursor.' },
    lastArgOptions: { description: 'How many items to return, counting back from `before`.' },
    beforeArgOptions: { description: 'Return the items before this cursor.' },
    // A malformed id decodes to no type: with the check below it is unknown (null), not an error.
    decodeGlobalID: (globalID) => {
      try {
        return decodeGlobalID(globalID);
      } catch {
        return { typename: '', id: '' };
      }
    },
    // An id naming no Node object type (a forged or stale id, an interface name) is unknown: null, not an error.
    nodeQueryOptions: {
      description: 'Fetches any object by its global id; null when it does not exist or is not yours to see.',
      resolve: (_root, args, _context, info, resolveNode) =>
        isNodeObject(info.schema, args.id.typename) ? resolveNode(args.id) : null,
    },
    nodesQueryOptions: {
      complexity: lengthCost('ids'),
      description: `Fetches objects by their global ids (at most ${MAX_NODES}), in order; null for each one that does not exist or failed (with its error).`,
      resolve: (_root, args, _context, info, resolveNodes) => {
        const all = args.ids;
        if (all.length > MAX_NODES) throw badUserInput(`nodes takes at most ${MAX_NODES} ids; got ${all.length}.`, 'ids');
        // Pothos resolves whatever `args.ids` holds when called: one id at a time, so that one failing
        // id costs only its own slot (an Error in a list slot nulls that item alone), not the whole list.
        return all.map((id) => {
          if (!isNodeObject(info.schema, id.typename)) return null;
          (args).ids = [id];
          return (async () => {
            try {
              // A node another field of the request loaded comes back from Pothos' cache untagged (even as a promise).
              const node: unknown = await (await resolveNodes([id]))[0];
              if (node && typeof node === 'object') brandWithType(node, id.typename as never);
              return node ?? null;
            } catch (error) {
              // An Error in a slot nulls that item alone; `maskError` gives it its public code.
              return error instanceof Error ? error : new Error(String(error));
            }
          })();
        });
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
