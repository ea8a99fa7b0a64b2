/**
 * One GraphQL operation's own limits and record, handed to every upstream call made for it: its scope
 * (signal, deadline, call budget, ledger, freshness bound, request id). Everyone outside this folder
 * imports it from here; how each part is enforced on a call is the transport's (`upstream/transport/`).
 */
export { CallBudget } from './budget.js';
export { OperationDeadline, deadlineExceeded, isDeadlineExceeded, untilDeadline } from './deadline.js';
export { UpstreamLedger, type LedgerCall, type LedgerReport } from './ledger.js';
export { FreshnessBound, assertMayCall, detached, type CallScope } from './scope.js';
