import type { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';

type Mask = (error: GraphQLError) => Error;

interface IncrementalPart {
  errors?: readonly GraphQLError[];
}

/**
 * Yoga masks the errors of a result, but not those inside the `incremental` parts of a `@defer`red or
 * `@stream`ed one: without this, a deferred field's upstream failure would reach the client with its
 * internal message and no public code. Each such error goes through the same `mask` as the rest.
 */
export function useMaskIncrementalErrors(mask: Mask): Plugin {
  return {
    onExecute() {
      return {
        onExecuteDone(payload) {
          return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            const incremental = (result as { incremental?: IncrementalPart[] }).incremental;
            if (!incremental?.some((part) => part.errors?.length)) return;
            setResult({
              ...result,
              incremental: incremental.map((part) => (part.errors?.length ? { ...part, errors: part.errors.map(mask) } : part)),
            } as typeof result);
          });
        },
      };
    },
  };
}
