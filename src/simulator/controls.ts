import type { IncomingHttpHeaders } from 'node:http';
import type { ServiceName } from './router.js';

/** Where a latency or fault applies: a whole service, or one route pattern of it (`GET /v0/assets/:id`). */
export interface Target {
  service: ServiceName;
  /** `METHOD /pattern` as registered, e.g. `GET /v0/assets/:id`; omitted = every route of the service. */
  route?: string;
}

export interface Latency {
  fixedMs: number;
  jitterMs?: number;
}

export interface Fault {
  /** Status to answer with (default 503). */
  status?: number;
  /** Share of requests that fail, 0..1 (default 1). */
  rate?: number;
  /** Never answer (until the client gives up or the simulator closes). */
  hang?: boolean;
  /** Raw body to send; default `{"error":"simulated fault"}`. */
  body?: string;
  /** Sent as `Retry-After` (seconds), e.g. with status 429. */
  retryAfterSeconds?: number;
  /**
   * Answer 200 with a JSON object of about this many bytes, sent chunked (no `Content-Length`) as fast
   * as the client reads it: an oversized body that costs the simulator nothing while the client does not read.
   */
  streamBytes?: number;
  /**
   * Answer 200 with this rewrite of the real answer's body (settable from code only): duplicated,
   * malformed or deeply nested records, a listing that never ends. It gets the real answer's status
   * too (a 400 for a cursor the simulator never issued). A string is sent as the raw body.
   */
  transform?: (body: unknown, query: URLSearchParams, status: number) => unknown;
}

export interface HeaderLogEntry {
  service: ServiceName;
  route: string;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

const HEADER_LOG_LIMIT = 5_000;

/**
 * Test and benchmark controls: latency and faults per service or route, a request counter per route,
 * and a bounded log of the headers received. Settable from code and through `/__sim/*`.
 */
export class SimulatorControls {
  readonly #latency = new Map<string, Latency>();
  readonly #faults = new Map<string, Fault>();
  readonly #counts = new Map<string, number>();
  #headerLog: HeaderLogEntry[] = [];
  #random: () => number = Math.random;

  setLatency(target: Target, latency: Latency | null): void {
    const key = targetKey(target);
    if (latency) this.#latency.set(key, latency);
    else this.#latency.delete(key);
  }

  setFault(target: Target, fault: Fault | null): void {
    const key = targetKey(target);
    if (fault) this.#faults.set(key, fault);
    else this.#faults.delete(key);
  }

  /** Clears latency, faults, counts and the header log. */
  reset(): void {
    this.#latency.clear();
    this.#faults.clear();
    this.resetCounts();
  }

  /** Clears counts and the header log only. */
  resetCounts(): void {
    this.#counts.clear();
    this.#headerLog = [];
  }

  /** Requests seen per `service METHOD /pattern`. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  /** Requests seen by a service, or by one of its routes (`GET /v0/assets/:id`). Unmatched paths count too. */
  count(service: ServiceName, route?: string): number {
    let total = 0;
    for (const [key, n] of this.#counts) {
      if (route ? key === `${service} ${route}` : key.startsWith(`${service} `)) total += n;
    }
    return total;
  }

  headerLog(filter?: Partial<Pick<HeaderLogEntry, 'service' | 'route'>>): HeaderLogEntry[] {
    return this.#headerLog.filter(
      (e) => (!filter?.service || e.service === filter.service) && (!filter?.route || e.route === filter.route),
    );
  }

  state() {
    return {
      latency: Object.fromEntries(this.#latency),
      faults: Object.fromEntries(this.#faults),
      counts: this.counts(),
    };
  }

  /** For deterministic fault rates in tests. */
  setRandom(random: () => number): void {
    this.#random = random;
  }

  /** @internal called by the server for every request. */
  record(entry: HeaderLogEntry): void {
    const key = `${entry.service} ${entry.route}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#headerLog.push(entry);
    if (this.#headerLog.length > HEADER_LOG_LIMIT) this.#headerLog.splice(0, this.#headerLog.length - HEADER_LOG_LIMIT);
  }

  /** @internal the delay to apply to a request, route setting first, then service. */
  delayFor(service: ServiceName, route: string): number {
    const l = this.#latency.get(targetKey({ service, route })) ?? this.#latency.get(targetKey({ service }));
    if (!l) return 0;
    return Math.max(0, l.fixedMs + (l.jitterMs ? this.#random() * l.jitterMs : 0));
  }

  /** @internal the fault that fires for this request, if any. */
  faultFor(service: ServiceName, route: string): Fault | undefined {
    const f = this.#faults.get(targetKey({ service, route })) ?? this.#faults.get(targetKey({ service }));
    if (!f) return undefined;
    return this.#random() < (f.rate ?? 1) ? f : undefined;
  }
}

function targetKey(t: Target): string {
  return t.route ? `${t.service} ${t.route}` : t.service;
}
