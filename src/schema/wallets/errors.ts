import { toGraphQLError } from '../../errors.js';

/** Awaits an upstream-backed value, turning a failure into the GraphQL error a caller should see. */
export async function upstreamValue<T>(value: Promise<T>): Promise<T> {
  try {
    return await value;
  } catch (error) {
    throw toGraphQLError(error);
  }
}
