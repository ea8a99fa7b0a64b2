import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLFieldResolver } from 'graphql';
import { holding } from '../held.js';

/**
 * The `id` of every Node type, resolved without a promise. The relay plugin resolves each one through
 * an `async` function, which makes every id of a response (a position's, its market's, its provider's,
 * …) a promise the executor waits on in a microtask of its own. This plugin resolves a node's id with the type's own `id.resolve` and the relay plugin's encoding,
 * the same string, and waits only when that resolver returns a promise.
 */
const pluginName = 'syncGlobalIds';

/**
 * The `extensions` key a Node type sets (`{ [HELD_RECORDS]: true }`) when its records are held
 * process-wide by a store: each of their ids is then encoded once, kept by raw id (`heldIds`), which the
 * copies other records embed (a position's market and its provider) find too. Ids of records made per
 * request are encoded every time: remembering them (a WeakMap entry per young record) costs the
 * scavenger more than the encoding (bench/PHASES.md).
 */
export const HELD_RECORDS = 'heldRecords';

/** Held ids kept at most, all held types together; past it they are dropped at once and encoded again. */
export const MAX_HELD_IDS = 4096;
/** Longest raw id kept (the upstreams' ids are far shorter); a longer one is encoded every time. */
const MAX_HELD_RAW = 128;
/** A kept id's bytes at most: its raw id and id (two bytes a character at worst), and the map entry. */
const HELD_ID_BYTES = 2 * MAX_HELD_RAW + 2 * Math.ceil(((64 + 1 + 3 * MAX_HELD_RAW) * 4) / 3) + 64;

/** Every held type's ids by raw id, and what they hold together. */
const held = new Set<Map<string, string>>();
let heldCount = 0;
let heldBytes = 0;
holding(held, { name: 'global_ids', bytes: () => heldBytes, maxBytes: MAX_HELD_IDS * HELD_ID_BYTES });

/** The ids of one held type by raw id: a held record's raw id is the same string on every request, its hash computed once. */
function heldIds(typename: string): (raw: string) => string {
  const ids = new Map<string, string>();
  held.add(ids);
  return (raw) => {
    const known = ids.get(raw);
    if (known !== undefined) return known;
    const id = encodeId(typename, raw);
    if (raw.length > MAX_HELD_RAW || typename.length > 64) return id;
    if (heldCount >= MAX_HELD_IDS) {
      for (const each of held) each.clear();
      heldCount = heldBytes = 0;
    }
    ids.set(raw, id);
    heldCount++;
    heldBytes += 64 + raw.length + id.length;
    return id;
  };
}

/** Longest id text encoded through the shared buffer: at most three UTF-8 bytes per UTF-16 unit. */
const SCRATCH_CHARS = 1024;
const scratch = Buffer.allocUnsafeSlow(3 * SCRATCH_CHARS);

/**
 * The relay plugin's global id (base64 of `Typename:id`'s UTF-8 bytes), written through one buffer:
 * `encodeGlobalID` makes a buffer per id. Synchronous, so no other id is written in between.
 */
export function encodeId(typename: string, raw: string): string {
  const text = `${typename}:${raw}`;
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
    const idOf = heldIds(typename);
    const encodeHeld = (raw: RawId) => (raw == null ? raw : idOf(String(raw)));
    return (parent, args, context, info) => {
      const raw = rawId(parent, args, context, info);
      return raw instanceof Promise ? raw.then(encodeHeld) : encodeHeld(raw);
    };
  }
}

SchemaBuilder.registerPlugin(pluginName, PothosSyncGlobalIdsPlugin);

export default pluginName;
