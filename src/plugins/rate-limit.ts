import type { IncomingMessage } from 'node:http';
import { Kind, OperationTypeNode, type DocumentNode, type ExecutionResult, type OperationDefinitionNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { Counter } from 'prom-client';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from './rate-limiters.js';
import type { Context, ServerContext } from '../context.js';
import { subscriberKey, type Credentials } from '../credentials.js';
import { gatewayError } from '../errors.js';
import { sha256 } from '../hashing.js';
import type { Logger } from '../logger.js';
import { addressBucket } from '../client-address.js';
import type { Services } from '../services.js';
import { appKeyHash } from '../stores/verified-callers.js';
import type { Identity } from '../models/alerts.js';
import { createCallerVerifier } from './caller-verification.js';
import { requestIdOf } from '../request-id.js';

export interface RateLimitOptions {
  /** Operations one caller may start per minute (`RATE_LIMIT_PER_MINUTE`); `0` turns the limit off. */
  perMinute: number;
  /** Counts in Redis, shared by every replica, when given; in this process when `null`. */
  redis: Redis | null;
  logger: Logger;
  /** Prefix of the Redis keys. Default `gateway:rate:`. */
  keyPrefix?: string;
  /**
   * Who the alerts service verified, and where clients are (for answers from the response cache, which
   * have no context); the alerts client, to verify a caller's credentials before counting it.
   */
  services: Pick<Services, 'verifiedCallers' | 'clientAddress' | 'upstream' | 'registry' | 'config'>;
  /** Where refusals are counted (`gateway_rate_limit_refusals_total{caller}`). */
  registry?: Services['registry'];
}

const REFUSALS = 'gateway_rate_limit_refusals_total';

const WINDOW_SECONDS = 60;
const ANONYMOUS: Credentials = { subscriber: null, apiKey: null };

/**
 * A rate limit per caller: `perMinute` operations in a fixed one-minute window. The unit is one
 * GraphQL operation that reaches execution: a query or mutation executed, a subscription started
 * (over HTTP, SSE or WebSocket alike; a subscription's events are not counted). The caller is named
 * by `callerKey` below: a verified identity, a verified app key, else the client address. No
 * credential is kept in the clear, in Redis or in memory.
 *
 * Past the limit the operation is refused with `RATE_LIMITED` and `extensions.retryAfterSeconds`;
 * over HTTP the response is 429 with `Retry-After`. With Redis, counts are shared across replicas;
 * while Redis is away each replica counts in its own memory (rate-limiter-flexible's insurance
 * limiter) rather than refusing everyone or limiting no one.
 *
 * The limit's plugin, and how an answer given before Yoga runs (fast-path/hits.ts) is counted; none when the limit is off.
 */
export interface RateLimit {
  plugin: Plugin<Context>;
  /**
   * Counts a cached answer as one operation of its caller, as `onResultProcess` does: true when counted
   * and allowed. False when the pipeline must answer instead: credentials not verified yet (the pipeline
   * verifies them first), or a refusal (the pipeline counts it again, which moves nothing past the limit,
   * and answers the 429).
   */
  countCachedAnswer?: (credentials: Credentials, req: IncomingMessage, requestId: string) => Promise<boolean>;
  /**
   * Counts an operation about to run, as `onExecute` does (its caller verified first): null when it may
   * run, else the refusal to answer with. The direct path (src/direct/) asks it; none when the limit is off.
   */
  admit?: (caller: Caller, operation: OperationDefinitionNode | undefined, ask: () => Promise<Identity>) => Promise<ExecutionResult | null>;
}

export function createRateLimit(options: RateLimitOptions): RateLimit {
  if (options.perMinute <= 0) return { plugin: {} };
  const { logger } = options;
  const memory = new RateLimiterMemory({ points: options.perMinute, duration: WINDOW_SECONDS });
  const limiter: RateLimiterAbstract = options.redis
    ? new RateLimiterRedis({
        storeClient: options.redis,
        keyPrefix: options.keyPrefix ?? 'gateway:rate',
        points: options.perMinute,
        duration: WINDOW_SECONDS,
        rejectIfRedisNotReady: true,
        insuranceLimiter: memory,
      })
    : memory;
  // One counter per registry, however many apps are built on it. `caller` is the kind of key counted (callerKey).
  const refusals = options.registry
    ? ((options.registry.getSingleMetric(REFUSALS) as Counter<'caller'> | undefined) ??
      new Counter({ name: REFUSALS, help: 'Operations refused by the rate limit, by the kind of caller counted.', labelNames: ['caller'], registers: [options.registry] }))
    : null;

  const verifier = createCallerVerifier({ services: options.services, redis: options.redis, keyPrefix: options.keyPrefix ?? 'gateway:rate' });

  /** `null` when the operation may run; otherwise the result that refuses it. */
  async function check(context: Caller, operation: OperationDefinitionNode | undefined, ask: () => Promise<Identity>): Promise<ExecutionResult | null> {
    const { subscriber, apiKey } = context.credentials;
    // Unknown credentials are verified before they are counted: a signed-in caller has its own budget from its first request.
    if (verifier && subscriber && !(apiKey && operation && isSend(operation))) {
      await verifier.verify(subscriber, addressBucket(context.services.clientAddress(context.req)), ask);
    }
    const key = callerKey(context, operation);
    try {
      await limiter.consume(key);
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        // The limiter itself failed (not a refusal): let the operation run.
        logger.warn({ err: rejection, requestId: requestIdOf(context.request) }, 'rate limit: could not count an operation');
        return null;
      }
      refusals?.inc({ caller: key.slice(0, key.indexOf(':')) });
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      // Over HTTP the whole request is this one operation: 429 and Retry-After (Yoga reads and strips `http`).
      const http = isWebSocket(context) ? {} : { http: { status: 429, headers: { 'Retry-After': String(retryAfterSeconds) } } };
      const message = `Too many operations: at most ${options.perMinute} a minute. Retry in ${retryAfterSeconds} s.`;
      return { errors: [gatewayError(message, 'RATE_LIMITED', { retryAfterSeconds, ...http })] };
    }
  }

  const countCachedAnswer = async (credentials: Credentials, req: IncomingMessage, requestId: string): Promise<boolean> => {
    if (verifier && credentials.subscriber && !options.services.verifiedCallers.identity(subscriberKey(credentials.subscriber))) return false;
    try {
      await limiter.consume(callerKey({ credentials, services: options.services, req }));
      return true;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return false;
      logger.warn({ err: rejection, requestId }, 'rate limit: could not count an operation');
      return true;
    }
  };

  const plugin: Plugin<Context> = {
    async onExecute({ args, context, setResultAndStopExecution }) {
      // A stale answer's background refresh was counted as the answer it refreshes.
      if (context.cacheRefresh) return;
      const refused = await check(context, operationOf((args.document as DocumentNode).definitions, args.operationName as string | null | undefined), () => context.alerts.identity());
      if (refused) setResultAndStopExecution(refused);
    },
    async onSubscribe({ args, context, setResultAndStopExecution }) {
      const refused = await check(context, operationOf((args.document as DocumentNode).definitions, args.operationName as string | null | undefined), () => context.alerts.identity());
      if (refused) setResultAndStopExecution(refused);
    },
    // An answer from the response cache never reaches execution; it is one operation of its caller too
    // (a query: sends are never cached).
    async onResultProcess(payload) {
      const { request } = payload;
      // The caller `useRequestDecisions` read for the response cache's lookup (none read: counted by its address).
      const { credentials = ANONYMOUS, req, deadline, servedFromCache } = payload.serverContext as ServerContext;
      if (!servedFromCache) return;
      const caller = { credentials, request, services: options.services, ...(req ? { req: req as IncomingMessage } : {}) };
      const scope = { signal: request.signal, ...(deadline ? { deadline } : {}) };
      const refused = await check(caller, undefined, () => options.services.upstream.alerts.getIdentity(credentials.subscriber!, { scope }));
      if (refused) payload.setResult(refused);
    },
  };
  return { plugin, countCachedAnswer, admit: check };
}

/** What names a caller: its credentials, and the node request of an HTTP or WebSocket operation (its address). */
export type Caller = Pick<Context, 'credentials' | 'request'> & {
  services: Pick<Services, 'verifiedCallers' | 'clientAddress'>;
  req?: IncomingMessage;
  socket?: unknown;
};

/**
 * Whose budget an operation spends (also the key other per-caller limits use):
 * - a subscriber the alerts service verified (`GET /v2/auth`, remembered for AUTH_IDENTITY_TTL_MS, asked
 *   by the limit's plugin before counting, within the attempts its address may spend): its wallet, however
 *   the token is spelled and whatever client key comes with it;
 * - a send with an app key that a send succeeded with lately: that key (its SHA-256);
 * - anything else, forged and unverified credentials included: the client's address as the trusted
 *   proxies report it, an IPv6 address by its /64. Changing hats never buys a fresh budget.
 */
export function callerKey(context: Omit<Caller, 'request'>, operation?: OperationDefinitionNode): string {
  const { subscriber, apiKey } = context.credentials;
  const verified = context.services.verifiedCallers;
  if (apiKey && operation && isSend(operation)) {
    const app = appKeyHash(apiKey);
    if (verified.knowsApp(app)) return `app:${app}`;
  } else if (subscriber) {
    const identity = verified.identity(subscriberKey(subscriber));
    if (identity) return `subscriber:${sha256(identity.walletAddress)}`;
  }
  return `address:${addressBucket(context.services.clientAddress(context.req))}`;
}

function isSend(operation: OperationDefinitionNode): boolean {
  return (
    operation.operation === OperationTypeNode.MUTATION &&
    operation.selectionSet.selections.some((selection) => selection.kind === Kind.FIELD && selection.name.value === 'sendNotification')
  );
}

function operationOf(definitions: readonly { kind: string }[], name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  return name ? operations.find((o) => o.name?.value === name) : operations[0];
}

/** graphql-ws operations carry the socket in their server context (`src/ws.ts`); there is no HTTP status to set. */
function isWebSocket(context: Caller): boolean {
  return context.socket !== undefined;
}

