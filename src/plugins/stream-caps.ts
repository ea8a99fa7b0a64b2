import type { Plugin } from 'graphql-yoga';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Context } from '../context.js';
import { gatewayError } from '../errors.js';
import { callerKey } from './rate-limit.js';

export interface StreamCapsOptions {
  /** Streams one caller may hold open at once (`MAX_STREAMS_PER_CLIENT`). */
  perClient: number;
  /** Streams this process holds open at once, all callers together (`MAX_STREAMS`). */
  perProcess: number;
  registry: Registry;
}

/** What a refused client is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;

/** Open streams, by caller and in all; shared by the plugin and the WebSocket server (`ws.ts`). */
export interface StreamCaps {
  plugin: Plugin<Context>;
  /** Open streams in this process. */
  readonly open: number;
  readonly perProcess: number;
}

/**
 * Caps on open subscriptions (over SSE and WebSocket alike: both run through envelop's subscribe):
 * at most `perClient` per caller, the caller named as the rate limit names it, and at most
 * `perProcess` in all. Past either, the subscription is refused before it starts: `RATE_LIMITED`
 * with `reason` `TOO_MANY_STREAMS` and `retryAfterSeconds`, HTTP 429 with `Retry-After` (an operation
 * error over WebSocket, where the socket stays open). A stream counts from its start until it ends,
 * whoever ends it. `gateway_streams_open` is the process's count; refusals count in
 * `gateway_streams_refused_total` by scope (`client`, `process`).
 */
export function createStreamCaps(options: StreamCapsOptions): StreamCaps {
  const perCaller = new Map<string, number>();
  let open = 0;
  // One registry may serve several apps built over the same services (tests do): the metrics are shared.
  const gauge =
    (options.registry.getSingleMetric('gateway_streams_open') as Gauge | undefined) ??
    new Gauge({ name: 'gateway_streams_open', help: 'Subscriptions (SSE and WebSocket) open in this process.', registers: [options.registry] });
  const refusals =
    (options.registry.getSingleMetric('gateway_streams_refused_total') as Counter<'scope'> | undefined) ??
    new Counter({
      name: 'gateway_streams_refused_total',
      help: 'Subscriptions refused because their caller (scope "client") or the process (scope "process") held the most streams allowed.',
      labelNames: ['scope'],
      registers: [options.registry],
    });

  const refusal = (context: Context, scope: 'client' | 'process') => {
    refusals.inc({ scope });
    const message =
      scope === 'client'
        ? `Too many open streams: at most ${options.perClient} per client. Close one before opening another.`
        : `This server holds the most streams it allows (${options.perProcess}). Retry in ${RETRY_AFTER_SECONDS} s.`;
    const overWebSocket = (context as { socket?: unknown }).socket !== undefined;
    const http = overWebSocket ? {} : { http: { status: 429, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } } };
    return { errors: [gatewayError(message, 'RATE_LIMITED', { reason: 'TOO_MANY_STREAMS', retryAfterSeconds: RETRY_AFTER_SECONDS, ...http })] };
  };

  const plugin: Plugin<Context> = {
    onSubscribe({ args, setResultAndStopExecution }) {
      const context = args.contextValue;
      // The one place a stream's caller is named.
      const key = callerKey(context, undefined);
      const held = perCaller.get(key) ?? 0;
      if (held >= options.perClient) return setResultAndStopExecution(refusal(context, 'client'));
      if (open >= options.perProcess) return setResultAndStopExecution(refusal(context, 'process'));
      perCaller.set(key, held + 1);
      open++;
      gauge.set(open);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const left = (perCaller.get(key) ?? 1) - 1;
        if (left > 0) perCaller.set(key, left);
        else perCaller.delete(key);
        open--;
        gauge.set(open);
      };
      return {
        onSubscribeResult: ({ result }) => {
          if (!(Symbol.asyncIterator in result)) return release();
          return { onEnd: release };
        },
        onSubscribeError: release,
      };
    },
  };
  return {
    plugin,
    get open() {
      return open;
    },
    perProcess: options.perProcess,
  };
}
