import { badUserInput } from '../../errors.js';
import { isOffered, pointCount, type Resolution } from '../../models/index.js';

/** Checks of caller input that several domains share. */

/** A Solana public key: 32 to 44 base58 characters (no 0, O, I or l). */
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function isSolanaAddress(value: string): boolean {
  return SOLANA_ADDRESS.test(value);
}

/** The arguments of a history field: `from`, `to` (default now) and a resolution. */
export interface WindowArgs {
  from: Date;
  to?: Date | null | undefined;
  resolution?: Resolution | null | undefined;
}

/** A window the upstream will accept, as the data sources' history reads take it. */
export interface HistoryWindow<R extends Resolution> {
  from: Date;
  /** null = now. */
  to: Date | null;
  resolution: R;
}

/** What one history endpoint accepts. */
export interface WindowRules<R extends Resolution> {
  /** The field being checked, as messages name it. */
  field: string;
  /** The resolutions the endpoint offers, and the one used when none is given. */
  resolutions: readonly R[];
  defaultResolution: R;
  /** Data exists from this instant until now: a `from` outside is refused. */
  dataStart?: Date;
  /** `from` must lie strictly before `to`; otherwise it may equal it. */
  strictOrder?: boolean;
  /** Most timestamps the window may hold at its resolution. */
  maxPoints?: number;
}

/** Checks a history window the way the upstream would, so that a bad one never costs a call. */
export function checkWindow<R extends Resolution>(args: WindowArgs, rules: WindowRules<R>, now = Date.now()): HistoryWindow<R> {
  const resolution = args.resolution ?? rules.defaultResolution;
  if (!isOffered(rules.resolutions, resolution)) {
    throw badUserInput(`${rules.field} offers the resolutions ${rules.resolutions.join(', ')}; not ${resolution}.`, 'resolution');
  }
  const from = args.from.getTime();
  const to = args.to ? args.to.getTime() : now;
  if (rules.dataStart && from < rules.dataStart.getTime()) {
    throw badUserInput(`from must be at or after ${rules.dataStart.toISOString()}: no data exists earlier.`, 'from');
  }
  if (from > now) throw badUserInput('from must not be in the future.', 'from');
  const untilNow = args.to ? '' : ' (default now)';
  if (rules.strictOrder && !(from < to)) throw badUserInput(`from must be before to${untilNow}.`, 'from');
  if (from > to) throw badUserInput(`from must not be after to${untilNow}.`, 'from');
  if (rules.maxPoints !== undefined) {
    const points = pointCount(from, to, resolution, now);
    if (points > rules.maxPoints) {
      throw badUserInput(
        `The range holds ${points} points at ${resolution}; at most ${rules.maxPoints} are allowed. Shorten the range or use a coarser resolution.`,
        'from',
      );
    }
  }
  return { from: args.from, to: args.to ?? null, resolution };
}
