/**
 * JSON an upstream sends for the gateway to pass on as is (a market's `additionalData`). It is
 * bounded when mapped, so that one record nested thousands deep or megabytes large can neither
 * break the answers that hold it nor be kept in the shared stores: past the bounds the value is
 * `Withheld`, and the field that serves it answers a field error while the rest is served.
 */

/** Deepest nesting of objects and arrays passed on (the value itself is depth 1). */
export const PASSTHROUGH_MAX_DEPTH = 16;
/** Largest passthrough value, in approximate bytes of its JSON. */
export const PASSTHROUGH_MAX_BYTES = 16 * 1024;

/** What stands for a passthrough value past the bounds. */
export class Withheld {
  constructor(readonly reason: string) {}
}

export type Passthrough = Record<string, unknown> | Withheld | null;

/**
 * The value when it is within the bounds, else `Withheld` saying which bound. Walks without
 * recursion and stops at the first bound crossed, so a value of any depth or size costs at most the bounds.
 */
export function boundedPassthrough(value: Record<string, unknown> | null): Passthrough {
  if (value === null) return null;
  let bytes = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') bytes += item.length + 2;
    else if (typeof item !== 'object' || item === null) bytes += 8;
    else {
      if (depth > PASSTHROUGH_MAX_DEPTH) return new Withheld(`nested over ${PASSTHROUGH_MAX_DEPTH} deep`);
      bytes += 2;
      // Children are counted as they are pushed: a value with a million keys stops at the bound.
      if (Array.isArray(item)) {
        for (const element of item) {
          stack.push([element, depth + 1]);
          if ((bytes += 1) > PASSTHROUGH_MAX_BYTES) break;
        }
      } else {
        for (const key in item) {
          if (!Object.hasOwn(item, key)) continue;
          stack.push([(item as Record<string, unknown>)[key], depth + 1]);
          if ((bytes += key.length + 4) > PASSTHROUGH_MAX_BYTES) break;
        }
      }
    }
    if (bytes > PASSTHROUGH_MAX_BYTES) return new Withheld(`over ${PASSTHROUGH_MAX_BYTES} bytes`);
  }
  return value;
}
