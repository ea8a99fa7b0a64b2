import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLFieldResolver } from 'graphql';

/**
 * The `id` of every Node type, resolved without a promise. The relay plugin resolves each one through
 * an `async` function, which makes every id of a response (a position's, its market's, its provider's,
 * …) a promise the executor waits on in a microtask of its own. This plugin resolves a node's id with the type's own `id.resolve` and the relay plugin's encoding,
 * the same string, and waits only when that resolver returns a promise.
 */
const pluginName = 'syncGlobalIds';

/**
 * The `extensions` key a Node type sets (`{ [HELD_RECORDS]: true }`) when its records are held
 * process-wide by a store, the same object on every request: each of their ids is then encoded once per
 * record. Other records are made per request; remembering theirs would cost a WeakMap entry per id,
 * which costs more than the encoding (bench/PHASES.md).
 */
export const HELD_RECORDS = 'heldRecords';

/** Longest id text encoded through the shared buffer: at most three UTF-8 bytes per UTF-16 unit. */
const SCRATCH_CHARS = 1024;
const scratch = Buffer.allocUnsafeSlow(3 * SCRATCH_CHARS);

/** A character outside ASCII: its UTF-8 bytes differ from the single byte `btoa` encodes. */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * The relay plugin's global id (base64 of `Typename:id`'s UTF-8 bytes). An ASCII text (the upstreams'
 * ids are) is its own UTF-8: `btoa` encodes it in one native call, where the buffer's
 * write and slice are two with their argument checks (bench/PHASES.md). Other text is written through
 * one buffer (`encodeGlobalID` makes a buffer per id); synchronous, so no other id is written in between.
 */
export function encodeId(typename: string, raw: string): string {
  const text = `${typename}:${raw}`;
  if (!NOT_ASCII.test(text)) return btoa(text);
  if (text.length > SCRATCH_CHARS) return encodeGlobalID(typename, raw);
  return scratch.toString('base64', 0, scratch.write(text, 0, 'utf8'));
}

declare global {
  // Pothos registers plugins in this global namespace: its plugin types cannot be declared otherwise.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      syncGlobalIds: PothosSyncGlobalIdsPlugin<Types>;
    }
  }
}

/** What a node's `id.resolve` returns (Pothos types it so): its raw id, which the encoding makes a string. */
type RawId = string | number | bigint | null | undefined;
type IdResolver = (parent: unknown, args: object, context: object, info: unknown) => RawId | Promise<RawId>;

export class PothosSyncGlobalIdsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    const idField = this.builder.options.relay?.idFieldName ?? 'id';
    if (fieldConfig.name !== idField || fieldConfig.kind !== 'Object') return resolver;
    const typeConfig = this.buildCache.getTypeConfig(fieldConfig.parentType);
    const id = (typeConfig.pothosOptions as { id?: { resolve?: IdResolver } }).id;
    // Only a node's own id field (declared by `builder.node` with `id.resolve`); the relay plugin's custom encoder, if any, keeps the async path.
    if (typeConfig.kind !== 'Object' || typeof id?.resolve !== 'function' || this.builder.options.relay?.encodeGlobalID) return resolver;
    const typename = typeConfig.name;
    const rawId = id.resolve;
    const encode = (raw: RawId) => (raw == null ? raw : encodeId(typename, String(raw)));
    if (typeConfig.extensions?.[HELD_RECORDS] !== true) {
      return (parent, args, context, info) => {
        const raw = rawId(parent, args, context, info);
        return raw instanceof Promise ? raw.then(encode) : encode(raw);
      };
    }
    // Ids by the record they were read from: the stores hand every request the same records (a page's
    // markets, providers, assets), whose ids never change, so each is encoded (base64) once, not per response.
    const encoded = new WeakMap<object, string>();
    return (parent, args, context, info) => {
      const record = typeof parent === 'object' && parent !== null ? parent : null;
      const known = record && encoded.get(record);
      if (known) return known;
      const raw = rawId(parent, args, context, info);
      if (raw instanceof Promise) return raw.then(encode);
      const id = encode(raw);
      if (record && typeof id === 'string') encoded.set(record, id);
      return id;
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, PothosSyncGlobalIdsPlugin);

export default pluginName;
