import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { NodeHandler } from './node-http.js';
import { acceptedRequestId, REQUEST_ID_HEADER } from './request-id.js';

/**
 * How much GraphQL work the gateway starts at once, in front of Yoga: under a flood of uncached pages
 * `/health` waited hundreds of ms (scripts/compression-flood.ts; README "On the wire"), because each
 * request runs its whole execution and serialization in one stretch of the event loop, and one turn of
 * the loop started every request that had arrived during the last.
 *
 * - **Per turn**: requests wait in a queue, first come first served, and start in a turn of the event
 *   loop (`setImmediate`), never in the listener that read them: a turn starts at most `perTurn`, and
 *   no more once its starts have taken `TURN_BUDGET_MS`, so it holds about one heavy execution's
 *   synchronous work, or a batch of light ones, between two reads of the sockets, where `/health` is answered.
 * - **In flight**: at most `maxInFlight` requests are being answered at once (from their start until
 *   their response is written or their client has gone), which bounds the memory their results hold.
 * - **Queue**: at most `maxQueued` wait; one more is refused at once, `503` with `Retry-After`
 *   (`RATE_LIMITED`, `reason: "OVERLOADED"`), costing the gateway nothing more. A waiting request whose
 *   client has gone is dropped when its turn comes.
 *
 * Only GraphQL requests (`/graphql`) are counted, except event streams (`text/event-stream`, the stream
 * path), which stay open for as long as the subscription lasts and are bounded by the stream caps.
 */
export interface AdmissionLimits {
  /** Requests started in one turn of the event loop. */
  perTurn: number;
  /** Requests being answered at once. */
  maxInFlight: number;
  /** Requests waiting for their turn or a free place; past it, 503. */
  maxQueued: number;
}

/**
 * Under the flood, on a busy 2-core machine, one heavy execution a turn kept the loop's p99 stall lower
 * than two (figures in README "On the wire"); a page that runs for milliseconds spends the turn's budget
 * alone, while requests that start a few upstream calls and wait start a few together, which spares
 * turns of the loop (their poll and timers); more a turn raised the peak RSS at 1,000 users with the
 * cache off (bench/PHASES.md "Admission"). 256 in flight bounds what
 * their results hold, above what one replica's CPU serves at once; 512 waiting are about five seconds of
 * the heaviest page at the flood's rate.
 */
export const DEFAULT_ADMISSION: Readonly<AdmissionLimits> = Object.freeze({ perTurn: 4, maxInFlight: 256, maxQueued: 512 });

/** The synchronous work a turn's starts may take before the rest wait for the next turn: under one heavy page's. */
export const TURN_BUDGET_MS = 1;

/** Seconds a refused client is asked to wait: the queue drains in well under that at any rate the gateway serves. */
export const RETRY_AFTER_SECONDS = 1;

interface Waiting {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Requests waiting for their turn in every admission of this process (the process's CPU is what they wait for). */
let waitingInProcess = 0;
export const requestsWaiting = (): number => waitingInProcess;

export class Admission {
  #inFlight = 0;
  #turnScheduled = false;
  readonly #queue: Waiting[] = [];
  #refused = 0;

  constructor(
    readonly limits: Readonly<AdmissionLimits>,
    private readonly handler: NodeHandler,
    /** Milliseconds on a monotonic clock, for the turn's budget. */
    private readonly now: () => number = () => performance.now(),
  ) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /** Requests refused with 503 since the process started. */
  get refused(): number {
    return this.#refused;
  }

  /** Queues the request for the next turn of the event loop, or refuses it when the queue is full. */
  admit(req: IncomingMessage, res: ServerResponse): void {
    if (this.queued >= this.limits.maxQueued) {
      this.#refused += 1;
      refuse(res);
      return;
    }
    this.#queue.push({ req, res });
    waitingInProcess += 1;
    this.#scheduleTurn();
  }

  /**
   * A request is on its way (node-http.ts reads its body at the loop's check phase, then admits it):
   * the turn is scheduled now, after that read, so that the request starts in the same turn of the loop.
   */
  expect(): void {
    this.#scheduleTurn();
  }

  /**
   * Starts the queue's next requests in a turn of their own (`setImmediate`, after the loop has read its
   * sockets), each run to its first wait before the next turn: the listener that read a request never runs it.
   */
  #scheduleTurn(): void {
    if (this.#turnScheduled) return;
    this.#turnScheduled = true;
    setImmediate(this.#turn);
  }

  // The turn is made once per admission, not per request.
  readonly #turn = (): void => {
    this.#turnScheduled = false;
    let started = 0;
    const begun = this.now();
    while (this.queued > 0 && this.#inFlight < this.limits.maxInFlight && started < this.limits.perTurn) {
      const next = this.#queue.shift()!;
      waitingInProcess -= 1;
      // Its client went away while it waited: nobody would read the answer.
      if (next.res.destroyed || next.res.socket?.destroyed) continue;
      started += 1;
      this.#start(next.req, next.res);
      if (this.now() - begun >= TURN_BUDGET_MS) break;
    }
    if (this.queued > 0 && this.#inFlight < this.limits.maxInFlight) this.#scheduleTurn();
  };

  /**
   * Every admitted response's one 'close' listener (no closure: the response knows its admission), which
   * also aborts what the handler asked (`abortWhenClosed`). 'close' comes once: answer written or socket gone.
   */
  static readonly #closed = function (this: Admitted): void {
    const admission = this[ADMITTED]!;
    admission.#inFlight -= 1;
    if (admission.queued > 0) admission.#scheduleTurn();
    abortUnlessWritten.call(this);
  };

  #start(req: IncomingMessage, res: ServerResponse): void {
    this.#inFlight += 1;
    (res as Admitted)[ADMITTED] = this;
    res.on('close', Admission.#closed);
    void this.handler(req, res);
  }
}

/** Where an admitted response keeps its admission, and the controller its close aborts unless the answer was written. */
const ADMITTED = Symbol('admission');
const ABORTS = Symbol('aborted unless written');
type Admitted = ServerResponse & { [ADMITTED]?: Admission; [ABORTS]?: AbortController };

/** Aborts `controller` when `res` closes before its answer is written (its client went away): by the admission's listener when admitted. */
export function abortWhenClosed(res: ServerResponse, controller: AbortController): void {
  const response = res as Admitted;
  response[ABORTS] = controller;
  if (!response[ADMITTED]) res.on('close', abortUnlessWritten);
}

function abortUnlessWritten(this: Admitted): void {
  if (!this.writableFinished) this[ABORTS]?.abort();
}

const GRAPHQL_PATH = '/graphql';
const HEALTH_PATH = '/health';

/**
 * The handler behind Node's listener: `/health` answered at once, before Yoga and whatever queue (a
 * liveness probe asks whether the process serves, which needs no upstream and no plugin; answered
 * through Yoga it waited behind the flood's executions), GraphQL work through `admission`, the rest
 * (readiness, metrics, webhooks, event streams) straight to `handler`.
 */
export function frontDoor(handler: NodeHandler, limits: Readonly<AdmissionLimits> = DEFAULT_ADMISSION, registry?: Registry): NodeHandler & { admission: Admission } {
  const admission = new Admission(limits, handler);
  if (registry) registerMetrics(admission, registry);
  const door = (req: IncomingMessage, res: ServerResponse) => {
    if (answerLiveness(req, res)) return;
    if (counted(req)) admission.admit(req, res);
    else void handler(req, res);
  };
  return Object.assign(door, { admission, expect: () => admission.expect() });
}

/** `gateway_admission_in_flight`, `gateway_admission_queued` and `gateway_admission_refused_total`, read from the admission when scraped. */
function registerMetrics(admission: Admission, registry: Registry): void {
  const gauges = {
    gateway_admission_in_flight: ['GraphQL requests being answered (admission.ts).', () => admission.inFlight],
    gateway_admission_queued: ['GraphQL requests waiting for their turn (admission.ts).', () => admission.queued],
  } as const;
  for (const [name, [help, read]] of Object.entries(gauges)) {
    if (registry.getSingleMetric(name)) continue;
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  }
  const refused = 'gateway_admission_refused_total';
  if (!registry.getSingleMetric(refused)) {
    new Counter({
      name: refused,
      help: 'GraphQL requests refused 503 because the admission queue was full.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(admission.refused);
      },
    });
  }
}

/** `GET`/`HEAD /health`: 200 with an empty body and the request's id, as Yoga's own health check answered. */
export function answerLiveness(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? '';
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !(url === HEALTH_PATH || url.startsWith(`${HEALTH_PATH}?`))) return false;
  res.writeHead(200, { 'content-length': 0, 'cache-control': 'no-store', [REQUEST_ID_HEADER]: acceptedRequestId(req.headers[REQUEST_ID_HEADER]) });
  res.end();
  return true;
}

/** Whether the request is GraphQL work the admission counts: not an event stream, which lasts as long as its subscription. */
export function counted(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  return (url === GRAPHQL_PATH || url.startsWith(`${GRAPHQL_PATH}?`)) && !/\btext\/event-stream\b/i.test(req.headers.accept ?? '');
}

function refuse(res: ServerResponse): void {
  const body = JSON.stringify({
    errors: [
      {
        message: `The gateway is at capacity; retry after ${RETRY_AFTER_SECONDS} s`,
        extensions: { code: 'RATE_LIMITED', reason: 'OVERLOADED', retryAfterSeconds: RETRY_AFTER_SECONDS },
      },
    ],
  });
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
  res.end(body);
}
