import type { GraphQLError } from 'graphql';

type Mask = (error: GraphQLError) => Error;

interface IncrementalPart {
  errors?: readonly GraphQLError[];
}

/**
 * Yoga masks the errors of a result, but not those inside the `incremental` parts of a `@defer`red or
 * `@stream`ed one: without this, a deferred field's upstream failure would reach the client with its
 * internal message and no public code. Each such error goes through the same `mask` as the rest: the
 * part with its errors masked, or undefined when it has none to mask.
 */
export function maskIncrementalErrors<T extends object>(part: T, mask: Mask): T | undefined {
  const incremental = (part as { incremental?: IncrementalPart[] }).incremental;
  if (!incremental?.some((item) => item.errors?.length)) return undefined;
  return { ...part, incremental: incremental.map((item) => (item.errors?.length ? { ...item, errors: item.errors.map(mask) } : item)) };
}
