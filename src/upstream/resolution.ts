import type { Resolution } from '../models/common.js';
import { refused, type ServiceName } from './errors.js';

const SPELLING: Record<Resolution, string> = {
  ONE_MINUTE: '1m',
  FIVE_MINUTES: '5m',
  ONE_HOUR: '1h',
  ONE_DAY: '1d',
};

/**
 * The upstream spelling of a resolution, or a refusal (`BAD_REQUEST`, no call made) when the
 * endpoint does not offer it.
 */
export function resolutionParam(
  service: ServiceName,
  endpoint: string,
  resolution: Resolution | undefined,
  accepted: readonly Resolution[],
): string | undefined {
  if (resolution === undefined) return undefined;
  if (!accepted.includes(resolution)) {
    throw refused(service, `${endpoint} offers the resolutions ${accepted.join(', ')}; not ${resolution}`);
  }
  return SPELLING[resolution];
}
