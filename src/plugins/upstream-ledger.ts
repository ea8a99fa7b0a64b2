import type { ExecutionResult } from 'graphql';
import type { CallScope } from '../operation/index.js';

/**
 * The operation's upstream ledger in `extensions.upstream` when its client asked for it
 * (`ledgerAsked`): the upstream calls made for it (service, route template, status, duration,
 * attempts), the copies the shared stores served it (`cache: { hits, stale, fallback }`) and the call
 * budget spent. Nothing else: no URL, host, header or query value. A deferred or streamed result
 * carries it in its last part, once every part's calls are in: undefined for any other part, and
 * for an operation without a ledger.
 */
export function withLedger<T extends ExecutionResult>(part: T, scope: CallScope | undefined): T | undefined {
  const ledger = scope?.ledger;
  if (!ledger || ('hasNext' in part && part.hasNext)) return undefined;
  return { ...part, extensions: { ...part.extensions, upstream: ledger.report(scope.budget) } };
}
