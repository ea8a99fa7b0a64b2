import type { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { errorLogger } from './error-log.js';
import { maskIncrementalErrors } from './mask-incremental-errors.js';
import { withLedger } from './upstream-ledger.js';

/** What an `onExecute` hook returns: the hooks on its result. */
type AfterExecution = Exclude<Awaited<ReturnType<NonNullable<Plugin<Context>['onExecute']>>>, void>;

/**
 * What the gateway does to an operation's result, or to each part of a deferred or streamed one, in
 * one hook: its field errors logged before they are masked (error-log.ts), the errors of incremental
 * parts masked as Yoga masks the rest (mask-incremental-errors.ts), and the upstream ledger added to
 * the last part when the client asked for it (upstream-ledger.ts). A plain result without errors or
 * ledger passes through untouched.
 */
export function useExecutionResults(options: { logger: Logger; mask: (error: GraphQLError) => Error }): Plugin<Context> {
  const log = errorLogger(options.logger);
  // One set of hooks for every operation (the payload names its arguments): nothing made per request.
  const afterExecution: AfterExecution = {
    onExecuteDone: (payload) => {
      const context = payload.args.contextValue;
      return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
        log(result, context);
        const masked = maskIncrementalErrors(result, options.mask) ?? result;
        const final = withLedger(masked, context.scope) ?? masked;
        if (final !== result) setResult(final);
      });
    },
  };
  return { onExecute: () => afterExecution };
}
