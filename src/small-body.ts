import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a small body read whole goes to: its request, response and bytes. */
export type BodyReceiver = (req: IncomingMessage, res: ServerResponse, bytes: Buffer) => void;

/** Where a body's chunks, and the response to answer it on, wait on the request while it is read. */
const CHUNKS = Symbol('body chunks');
const RESPONSE = Symbol('response');
type Reading = IncomingMessage & { [CHUNKS]?: Buffer[] | undefined; [RESPONSE]?: ServerResponse | undefined };

/**
 * Reads small request bodies whole and hands each to `received` (node-http.ts: GraphQL POSTs of a few
 * kilobytes). Node's parser hands a body to its request after the 'request' listener returns, and runs
 * the ticks in between; a body that came with its headers (nearly every one) is whole in the request's
 * buffer by the loop's check phase. The bodies that arrived in a turn are taken there, each in one
 * read, without the stream's flowing mode, its ticks and 'data' events; a body still arriving is read
 * as it comes. A body that does not arrive whole never reaches `received` (the server's requestTimeout
 * ends it); a request that fails while read destroys its response.
 */
export function smallBodyReader(received: BodyReceiver): (req: IncomingMessage, res: ServerResponse) => void {
  let arrived: Reading[] = [];
  let scheduled = false;

  const take = (req: Reading) => {
    const bytes = req.complete ? (req.read() as Buffer | null) : null;
    if (bytes !== null && req.readableLength === 0) return received(req, req[RESPONSE]!, bytes);
    req[CHUNKS] = bytes === null ? [] : [bytes];
    req.on('data', onData);
    req.on('end', onEnd);
  };
  const takeArrived = () => {
    scheduled = false;
    const batch = arrived;
    arrived = [];
    for (const req of batch) {
      try {
        take(req);
      } catch {
        req[RESPONSE]!.destroy();
      }
    }
  };
  // 'end' and 'error' come at most once each: plain listeners, without `once`'s wrapper per request, made
  // once per reader: a request's chunks and its response wait on the request, no closure per request.
  function onData(this: Reading, chunk: Buffer): void {
    this[CHUNKS]!.push(chunk);
  }
  function onEnd(this: Reading): void {
    const chunks = this[CHUNKS]!;
    this[CHUNKS] = undefined;
    received(this, this[RESPONSE]!, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  }
  function onError(this: Reading): void {
    this[RESPONSE]!.destroy();
  }

  return (req, res) => {
    (req as Reading)[RESPONSE] = res;
    req.on('error', onError);
    arrived.push(req);
    if (!scheduled) {
      scheduled = true;
      setImmediate(takeArrived);
    }
  };
}
