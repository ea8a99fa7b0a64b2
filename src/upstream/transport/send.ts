import type { Dispatcher } from 'undici';
import { ERROR_BODY_LIMIT, inFlightBytesReached, tooLarge, type InFlightBytes } from '../body.js';
import { parseAnswer, statusFailure, type ResponseHeaders } from '../status.js';
import type { Endable, Send, UpstreamCall } from './call.js';
import { Pause, type RetryPolicy } from './retry.js';
import { toError } from '../../inflight-waiter.js';

/**
 * The innermost step: one request on the shared undici dispatcher, its body read whole within its cap
 * and the process-wide ceiling of bytes in flight (body.ts), its answer parsed or turned into the
 * failure its status means (status.ts), and the one retry `retry` allows. A dispatch handler rather
 * than undici's `request()`: no body stream, no AbortSignal per call; ending the call aborts the
 * dispatch through its controller. Its outcome goes to `call.to`, whatever its tries: no promise here.
 */
export function createSend(agent: Dispatcher, origin: string, inFlight: InFlightBytes | undefined, retry: RetryPolicy | undefined): Send {
  const link: Link = { agent, origin, inFlight, retry };
  return (call) => new Exchange(call, link).send();
}

/** What every exchange of one client shares. */
interface Link {
  agent: Dispatcher;
  origin: string;
  inFlight: InFlightBytes | undefined;
  retry: RetryPolicy | undefined;
}

/** One request of a call (a retry is a second exchange settling the same promise). */
class Exchange implements Dispatcher.DispatchHandler, Endable {
  readonly #call: UpstreamCall;
  readonly #link: Link;
  readonly #inFlight: InFlightBytes | undefined;
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #settled = false;
  // Most answers arrive in one chunk: held as it is, a list made for a second.
  #chunk: Buffer | undefined = undefined;
  #chunks: Buffer[] | undefined = undefined;
  /** Bytes read, all counted in the bytes in flight until the exchange settles. */
  #bytes = 0;
  #limit = 0;
  #ok = false;
  #headers: ResponseHeaders | undefined = undefined;

  constructor(call: UpstreamCall, link: Link) {
    this.#call = call;
    this.#link = link;
    this.#inFlight = link.inFlight;
  }

  send(): void {
    const call = this.#call;
    call.attempts += 1;
    call.runs(this);
    // The request id is added here, below the sharing of GETs (share.ts), which keys calls by their headers.
    const headers = call.requestId ? { ...call.headers, 'x-request-id': call.requestId } : call.headers;
    if (this.#settled) return;
    try {
      this.#link.agent.dispatch({ origin: this.#link.origin, path: call.path, method: call.method, headers, body: call.body }, this);
    } catch (error) {
      // Refused before it was sent (undici's argument checks): the call's failure, as any other.
      this.#fail(toError(error));
    }
  }

  /** The call was ended (timeout, deadline, caller): fails at once, and aborts the request once undici started it. */
  end(reason: Error): void {
    if (this.#settled) return;
    this.#fail(reason);
    this.#controller?.abort(reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Ended while queued for a connection: never sent.
    if (this.#settled) return controller.abort(this.#call.endedBy ?? new Error('ended before it was sent'));
    this.#controller = controller;
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: ResponseHeaders): void {
    const call = this.#call;
    call.status = status;
    this.#ok = status >= 200 && status < 300;
    this.#limit = this.#ok ? call.maxBytes : ERROR_BODY_LIMIT;
    this.#headers = headers;
    const declared = Number(headers['content-length']);
    if (Number.isFinite(declared) && declared > this.#limit) this.#overCap(controller, tooLarge(call.service, status, this.#limit));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    const call = this.#call;
    if (this.#bytes + chunk.length > this.#limit) return this.#overCap(controller, tooLarge(call.service, call.status!, this.#limit));
    if (this.#inFlight && !this.#inFlight.take(chunk.length)) return this.#overCap(controller, inFlightBytesReached(call.service, call.status!));
    this.#bytes += chunk.length;
    if (this.#chunks) this.#chunks.push(chunk);
    else if (this.#chunk) {
      this.#chunks = [this.#chunk, chunk];
      this.#chunk = undefined;
    } else this.#chunk = chunk;
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    const text = chunks ? Buffer.concat(chunks, this.#bytes).toString('utf8') : (this.#chunk?.toString('utf8') ?? '');
    this.#chunk = this.#chunks = undefined;
    // The bytes count as in flight until parsed: a parse doubles what the text holds.
    try {
      this.#answer(text);
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    // An error answer cut short is still the failure its status means, without the upstream's message.
    if (this.#call.status !== undefined && !this.#ok && !this.#call.endedBy) return this.#answer('');
    this.#fail(error);
  }

  /** A body past its cap or the ceiling of bytes in flight: a 2xx fails with `failure`; an error answer is read as empty. The request is dropped. */
  #overCap(controller: Dispatcher.DispatchController, failure: Error): void {
    if (this.#ok) this.#fail(failure);
    else this.#answer('');
    controller.abort(failure);
  }

  #answer(text: string): void {
    if (this.#settled) return;
    const call = this.#call;
    if (!this.#ok) return this.#fail(statusFailure(call.service, call.status!, text, this.#headers ?? {}));
    call.onBytes?.(this.#bytes);
    const value = parseAnswer(call.service, call.method, call.status!, text);
    this.#settle();
    call.stopTimer();
    call.guard?.succeeded();
    call.to.resolve(value);
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settle();
    const call = this.#call;
    const pause = this.#link.retry?.(call, error);
    if (pause === undefined) return this.#failed(error);
    const again = () => new Exchange(call, this.#link).send();
    new Pause(call, pause, again, (reason) => this.#failed(reason));
  }

  /** The call's last failure: its caller sees it once the breaker wrote it down. */
  #failed(error: Error): void {
    const call = this.#call;
    call.stopTimer();
    if (call.guard) call.guard.failed(error).catch((failure: unknown) => call.to.reject(toError(failure)));
    else call.to.reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.#chunk = this.#chunks = undefined;
    if (this.#bytes > 0) this.#inFlight?.give(this.#bytes);
  }
}
