import { UpstreamError, type UpstreamErrorKind } from '../../../sources/index.js';
import { builder } from '../../builder.js';

/**
 * Expected failures of a mutation: they go in the payload's `userErrors`, not in top-level `errors`
 * (Shopify's rule). Faults (401, 429, 5xx, timeouts) stay top-level errors, mapped by `maskError`.
 */
export const USER_ERROR_CODES = {
  INVALID_INPUT: 'A value is outside what the field accepts; `field` names it and the message says what is allowed.',
  INVALID_EMAIL: 'The email address is not valid.',
  CHANNEL_EXISTS: 'An email channel is set up already: delete it before preparing another.',
  INVALID_CODE: 'The verification code is wrong or expired, or no verification is pending.',
  ALREADY_VERIFIED: 'The email channel is verified already.',
  CHANNEL_NOT_FOUND: 'There is no email channel to verify: prepare one first.',
  UNKNOWN_APP: 'An app id names no app.',
  TOO_MANY_RECIPIENTS: 'More than 10,000 distinct wallet addresses in one send.',
  IDEMPOTENCY_KEY_REUSED: 'The idempotency key was used with a different input within the last 24 hours.',
  APP_NOT_OWNED: 'The X-Service-Api-Key does not own this app.',
  REJECTED: 'The alerts service refused the request for another reason.',
} as const;

export type UserErrorCode = keyof typeof USER_ERROR_CODES;

export interface UserError {
  code: UserErrorCode;
  message: string;
  /** Path from the mutation's `input` to the value at fault (`["recipient", "walletAddresses", "3"]`); null when no one field is. */
  field: string[] | null;
}

export const UserErrorCodeEnum = builder.enumType('UserErrorCode', {
  description: 'Stable code of an expected mutation failure; branch on it, show `message`.',
  values: Object.fromEntries(
    Object.entries(USER_ERROR_CODES).map(([code, description]) => [code, { value: code, description }]),
  ) as { [C in UserErrorCode]: { value: C; description: string } },
});

export const UserErrorRef = builder.objectRef<UserError>('UserError').implement({
  description: 'An expected failure of a mutation: bad input, or a refusal the caller can act on.',
  fields: (t) => ({
    code: t.field({ type: UserErrorCodeEnum, nullable: false, description: 'What went wrong, as a stable code.', resolve: (e) => e.code }),
    message: t.exposeString('message', { nullable: false, description: 'What went wrong and what is allowed, for people.' }),
    field: t.exposeStringList('field', {
      description: 'Path from the mutation\'s `input` to the value at fault, e.g. `["recipient", "walletAddresses", "3"]`; null when no single field is.',
    }),
  }),
});

export function userError(code: UserErrorCode, message: string, field?: readonly (string | number)[]): UserError {
  return { code, message, field: field && field.length > 0 ? field.map(String) : null };
}

/** What a refusal of the upstream (400, 403, 404, 409, 422) becomes; the rest are faults. */
export type Refusals = Partial<Record<Refusal, RefusalSpec | ((error: UpstreamError) => UserError[])>>;
interface RefusalSpec {
  code: UserErrorCode;
  /** Defaults to the code's description. */
  message?: string;
  field?: string[];
}
type Refusal = Extract<UpstreamErrorKind, 'BAD_REQUEST' | 'CONFLICT' | 'UNPROCESSABLE' | 'FORBIDDEN' | 'NOT_FOUND'>;

/**
 * Refusals that are always the caller's to fix, so `userErrors` even when a mutation names no code for
 * them: `REJECTED` with the gateway's own message. The upstream's text is never passed on, as it can
 * name internals (hosts, queries, stack frames).
 */
const REJECTED_MESSAGES: Partial<Record<UpstreamErrorKind, string>> = {
  BAD_REQUEST: 'The alerts service found the request invalid.',
  CONFLICT: 'The request conflicts with the current state at the alerts service; reload and try again.',
  UNPROCESSABLE: 'The alerts service could not carry out the request.',
};

export type Attempt<T> = { ok: true; value: T } | { ok: false; userErrors: UserError[] };

/**
 * Runs an upstream call. A refusal becomes `userErrors` (the mutation's own code, or `REJECTED`), each
 * with the gateway's own message; 401 becomes `UNAUTHENTICATED`, 429 `RATE_LIMITED` and faults
 * `UPSTREAM_UNAVAILABLE`, all thrown as top-level errors.
 */
export async function attempt<T>(call: () => Promise<T>, refusals: Refusals = {}): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    const mapped = refusals[error.kind as Refusal];
    if (typeof mapped === 'function') return { ok: false, userErrors: mapped(error) };
    if (mapped) {
      return { ok: false, userErrors: [userError(mapped.code, mapped.message ?? USER_ERROR_CODES[mapped.code], mapped.field)] };
    }
    const rejected = REJECTED_MESSAGES[error.kind];
    if (rejected) return { ok: false, userErrors: [userError('REJECTED', rejected)] };
    // A fault, not an expected outcome: the one error mapping (`maskError`) turns it into its public code.
    throw error;
  }
}
