// STUB: replaced by the alerts mutations domain.
import type { ServiceDeps } from '../services.js';
export type IdempotencyStore = Record<string, never>;
export function createIdempotencyStore(_deps: ServiceDeps): IdempotencyStore {
  return {};
}
