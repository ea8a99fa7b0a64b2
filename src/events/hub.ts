// STUB: replaced by the events domain.
import type { ServiceDeps } from '../services.js';
export interface EventHub {
  close(): Promise<void>;
}
export function createEventHub(_deps: ServiceDeps): EventHub {
  return { close: async () => {} };
}
