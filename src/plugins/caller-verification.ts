import { Counter } from 'prom-client';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from './rate-limiters.js';
import { subscriberKey } from '../credentials.js';
import type { Services } from '../services.js';
import type { Identity } from '../models/alerts.js';
import { createRefusedCallers } from '../stores/verified-callers.js';
import { UpstreamError, type SubscriberCredentials } from '../upstream/index.js';

/**
 * Verification attempts one address may spend a minute on credentials the alerts service does not
 * confirm. A confirmed token gives its attempt back, so thousands of signed-in users behind one carrier
 * address (CGNAT) are each verified, while forged tokens from it cost at most this many auth calls.
 */
export const VERIFY_ATTEMPTS_PER_ADDRESS = 30;

const WINDOW_SECONDS = 60;
const METRIC = 'gateway_auth_verifications_total';

/** Why an operation's credentials were or were not verified before it was counted. */
export type VerificationOutcome = 'verified' | 'refused' | 'failed' | 'skipped';

export interface CallerVerifierOptions {
  services: Pick<Services, 'verifiedCallers' | 'registry' | 'config'>;
  /** The attempts per address are counted in Redis (every replica together) when given. */
  redis: Redis | null;
  keyPrefix: string;
  attemptsPerAddress?: number;
}

export interface CallerVerifier {
  /**
   * Asks the alerts service once whose these credentials are (`GET /v2/auth`), so the rate limit counts
   * the caller by identity from its first request, also one that reads only public data. The answer
   * goes into the identity memo (`verifiedCallers`); a refusal is remembered too, so a repeated forged
   * token costs no call. `ask` makes the call: the request's own identity read when the operation has a
   * context, so a resolver that reads the viewer gets the same answer with no second call. Never
   * throws: anything unverified is counted by its address.
   */
  verify(credentials: SubscriberCredentials, address: string, ask: () => Promise<Identity>): Promise<void>;
}

/** Without the identity memo (`AUTH_IDENTITY_TTL_MS=0`) nothing could be remembered: no call is made for counting alone. */
export function createCallerVerifier(options: CallerVerifierOptions): CallerVerifier | null {
  const { services, redis } = options;
  const ttlMs = services.config.authIdentityTtlMs;
  if (ttlMs <= 0) return null;
  const points = options.attemptsPerAddress ?? VERIFY_ATTEMPTS_PER_ADDRESS;
  const memory = new RateLimiterMemory({ points, duration: WINDOW_SECONDS });
  const attempts: RateLimiterAbstract = redis
    ? new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${options.keyPrefix}:verify`,
        points,
        duration: WINDOW_SECONDS,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;
  const refused = createRefusedCallers(ttlMs);
  const inFlight = new Map<string, Promise<void>>();
  const outcomes =
    (services.registry.getSingleMetric(METRIC) as Counter<'outcome'> | undefined) ??
    new Counter({
      name: METRIC,
      help: 'Credentials the rate limit had the alerts service verify, by outcome (skipped: the address spent its attempts).',
      labelNames: ['outcome'],
      registers: [services.registry],
    });
  const count = (outcome: VerificationOutcome) => outcomes.inc({ outcome });

  async function attempt(key: string, address: string, ask: () => Promise<Identity>): Promise<void> {
    try {
      await attempts.consume(address);
    } catch {
      // Spent (or the limiter failed): counted by the address, as every unverified caller is.
      count('skipped');
      return;
    }
    try {
      const identity = await ask();
      services.verifiedCallers.rememberIdentity(key, identity);
      count('verified');
      await attempts.reward(address).catch(() => undefined);
    } catch (error) {
      const refusal = error instanceof UpstreamError && (error.kind === 'UNAUTHENTICATED' || error.kind === 'FORBIDDEN');
      if (refusal) refused.set(key, true);
      count(refusal ? 'refused' : 'failed');
    }
  }

  return {
    async verify(credentials, address, ask) {
      const key = subscriberKey(credentials);
      if (services.verifiedCallers.identity(key) || refused.has(key)) return;
      let pending = inFlight.get(key);
      if (!pending) {
        pending = attempt(key, address, ask).finally(() => inFlight.delete(key));
        inFlight.set(key, pending);
      }
      await pending;
    },
  };
}
