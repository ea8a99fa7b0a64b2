/**
 * Small readers for mapping raw upstream records defensively. Optional values come back as null
 * (the contract allows omitted or null); a value the contract requires throws `Malformed`, which a
 * list mapper catches to drop that one record instead of failing the whole answer.
 */
export class Malformed extends Error {
  constructor(field: string) {
    super(`missing or invalid ${field}`);
    this.name = 'Malformed';
  }
}

export type Raw = Record<string, unknown>;

export function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function reqString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new Malformed(field);
  return value;
}

export function optNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

export function reqNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Malformed(field);
  return value;
}

export function optBoolean(value: unknown): boolean | null {
  return typeof value === 'boolean' ? value : null;
}

export function optObject(value: unknown): Raw | null {
  return isObject(value) ? value : null;
}

export function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Maps each element, dropping those the mapper rejects (null or `Malformed`). */
export function mapEach<T>(values: unknown, map: (raw: unknown) => T | null): T[] {
  const out: T[] = [];
  for (const raw of array(values)) {
    const mapped = orNull(() => map(raw));
    if (mapped !== null) out.push(mapped);
  }
  return out;
}

/**
 * The first of each identity, in the order sent: where the contract gives records an identity
 * (positions, channels, inbox items, search results, markets), a record sent twice is one record,
 * counted and summed once.
 */
export function distinctBy<T>(items: readonly T[], identity: (item: T) => string): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const id = identity(item);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(item);
  }
  return out;
}

/** Runs a mapper; a `Malformed` record becomes null, any other error is a bug and propagates. */
export function orNull<T>(map: () => T | null): T | null {
  try {
    return map();
  } catch (error) {
    if (error instanceof Malformed) return null;
    throw error;
  }
}

/** Epoch seconds to ISO 8601. */
export function isoFromSeconds(value: unknown): string | null {
  const seconds = optNumber(value);
  if (seconds === null) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** Dates given as `Date` or ISO strings, sent as ISO strings. */
export function isoTime(value: Date | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.toISOString();
}
