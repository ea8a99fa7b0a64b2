import type { Dispatcher } from 'undici';
import { ERROR_BODY_LIMIT, inFlightBytesReached, tooLarge, type InFlightBytes } from '../body.js';
import { parseAnswer, statusFailure, type ResponseHeaders } from '../status.js';
import type { Endable, Send, UpstreamCall } from './call.js';

/**
 * The innermost step: one request on the shared undici dispatcher, its body read whole within its cap
 * and the process-wide ceiling of bytes in flight (body.ts), its answer parsed or turned into the failure its status means
 * (status.ts). A dispatch handler rather than undici's `request()`: no body stream, no AbortSignal per
 * call; ending the call aborts the dispatch through its controller.
 */
export function createSend(agent: Dispatcher, origin: string, inFlight: InFlightBytes | undefined): Send {
  return (call) => new Exchange(call, inFlight).send(agent, origin);
}

class Exchange implements Dispatcher.DispatchHandler, Endable {
  readonly #call: UpstreamCall;
  readonly #inFlight: InFlightBytes | undefined;
  #controller: Dispatcher.DispatchController | undefined = undefined;
  #resolve!: (value: unknown) => void;
  #reject!: (error: Error) => void;
  #settled = false;
  #chunks: Buffer[] = [];
  /** Bytes read, all counted in the bytes in flight until the exchange settles. */
  #bytes = 0;
  #limit = 0;
  #ok = false;
  #headers: ResponseHeaders = {};

  constructor(call: UpstreamCall, inFlight: InFlightBytes | undefined) {
    this.#call = call;
    this.#inFlight = inFlight;
  }

  send(agent: Dispatcher, origin: string): Promise<unknown> {
    const answer = new Promise<unknown>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    const call = this.#call;
    call.attempts += 1;
    call.runs(this);
    // The request id is added here, below the sharing of GETs (share.ts), which keys calls by their headers.
    const headers = call.requestId ? { ...call.headers, 'x-request-id': call.requestId } : call.headers;
    if (!this.#settled) agent.dispatch({ origin, path: call.path, method: call.method, headers, body: call.body }, this);
    return answer;
  }

  /** The call was ended (timeout, deadline, caller): fails at once, and aborts the request once undici started it. */
  end(reason: Error): void {
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
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, this.#bytes).toString('utf8');
    this.#chunks = [];
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
    if (!this.#ok) return this.#fail(statusFailure(call.service, call.status!, text, this.#headers));
    call.onBytes?.(this.#bytes);
    const value = parseAnswer(call.service, call.method, call.status!, text);
    this.#settle();
    this.#resolve(value);
  }

  #fail(error: Error): void {
    if (this.#settled) return;
    this.#settle();
    this.#reject(error);
  }

  #settle(): void {
    this.#settled = true;
    this.#chunks = [];
    if (this.#bytes > 0) this.#inFlight?.give(this.#bytes);
  }
}
