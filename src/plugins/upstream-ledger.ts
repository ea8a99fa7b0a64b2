import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { Context } from '../context.js';

/**
 * Adds the operation's upstream ledger to `extensions.upstream` when its client asked for it
 * (`ledgerAsked`): the upstream calls made for it (service, route template, status, duration,
 * attempts), the copies the shared stores served it (`cache: { hits, stale, fallback }`) and the call
 * budget spent. Nothing else: no URL, host, header or query value. A deferred or streamed result
 * carries it in its last part, once every part's calls are in. No options.
 */
export function useUpstreamLedger(): Plugin<Context> {
  return {
    onExecute({ args }) {
      const { scope } = args.contextValue;
      const ledger = scope?.ledger;
      if (!ledger) return;
      return {
        onExecuteDone(payload) {
          return handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            if ('hasNext' in result && result.hasNext) return;
            setResult({ ...result, extensions: { ...result.extensions, upstream: ledger.report(scope.budget) } });
          });
        },
      };
    },
  };
}
