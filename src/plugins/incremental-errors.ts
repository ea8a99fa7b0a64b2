import type { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin, type YogaMaskedErrorOpts } from 'graphql-yoga';

export interface IncrementalErrorsOptions {
  /** The mapping Yoga applies to a result's top-level errors (`maskedErrors.maskError`: errors.ts). */
  maskError: YogaMaskedErrorOpts['maskError'];
  /** Development: the masked errors keep the original's details. */
  isDev: boolean;
}

interface IncrementalPart {
  errors?: readonly GraphQLError[];
}

/**
 * Gives the errors of deferred and streamed parts (`incremental[].errors`) the same mapping as a
 * result's top-level errors. Yoga's error masking reads `errors` only, so a deferred field's upstream
 * failure would reach the client unmapped: no public code, the internal message.
 */
export function useIncrementalErrorMasking({ maskError, isDev }: IncrementalErrorsOptions): Plugin {
  const mask = (part: IncrementalPart): IncrementalPart =>
    part.errors?.length ? { ...part, errors: part.errors.map((error) => maskError(error, 'Unexpected error.', isDev) as GraphQLError) } : part;
  return {
    onExecute() {
      return {
        onExecuteDone(payload) {
          return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            const incremental = (result as { incremental?: readonly IncrementalPart[] }).incremental;
            if (incremental?.some((part) => part.errors?.length)) setResult({ ...result, incremental: incremental.map(mask) } as typeof result);
          });
        },
      };
    },
  };
}
