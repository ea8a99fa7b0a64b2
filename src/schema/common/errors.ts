import { toGraphQLError } from '../../errors.js';

/**
 * Awaits an upstream-backed value (a loader's or a client's), turning a failure into the GraphQL error
 * a caller should see. Every resolver that reads an upstream goes through it.
 */
export async function upstreamValue<T>(value: Promise<T>): Promise<T> {
  try {
    return await value;
  } catch (error) {
    throw toGraphQLError(error);
  }
}
