import { holding } from '../held.js';
import type { Sent } from './hit-request.js';

/** Bodies remembered at once, and the bytes they may hold together (GraphQL requests of the screens that hit: a few kilobytes each). */
const MAX_BODIES = 256;
const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** Bodies of one length remembered: a body is found by comparing it with those of its length, so this bounds the bytes compared per lookup. */
const SAME_LENGTH_BODIES = 4;
/** A remembered body's bookkeeping beside its bytes (its parameters' objects, the Buffer, the list's slot), for the gauge. */
const ENTRY_OVERHEAD_BYTES = 512;
/** The bytes, and the parameters they parse to (their document's text, about as long), per byte of body. */
const HELD_PER_BODY_BYTE = 2;

interface Known<T> {
  bytes: Buffer;
  sent: T;
}

/** What a set of remembered bodies is named in the held-bytes gauge, and what bounds it. */
export interface KnownBodiesLimits {
  name: string;
  maxBodies: number;
  maxBytes: number;
}

const HIT_BODIES: KnownBodiesLimits = { name: 'hit_bodies', maxBodies: MAX_BODIES, maxBytes: MAX_BODY_BYTES };

/**
 * The parameters of JSON bodies answered from the response cache, found again by their bytes: a
 * screen sends the same body on every request (the caller is in the headers), and parsing it was the
 * largest step of a hit's own work after the key's hash (bench/PHASES.md, "cached hit"). A body is
 * found by comparing its bytes with the few of its length (no hash of it made per request); the
 * parameters found are those the same bytes parse to, so the key made from them is the pipeline's.
 * Only bodies that were answered as hits are remembered (a body seen once costs nothing here), and
 * the remembered parameters are read, never handed to the pipeline. Bounded in count and bytes:
 * when full, the oldest of a length, or everything, is dropped.
 */
export class KnownBodies<T = Sent> {
  readonly #byLength = new Map<number, Known<T>[]>();
  #count = 0;
  #bytes = 0;

  /** `limits`: the hit path's by default; the direct path (src/direct/) remembers its plans under its own. */
  constructor(readonly limits: Readonly<KnownBodiesLimits> = HIT_BODIES) {
    holding(this, {
      name: limits.name,
      bytes: () => HELD_PER_BODY_BYTE * this.#bytes + this.#count * ENTRY_OVERHEAD_BYTES,
      maxBytes: HELD_PER_BODY_BYTE * limits.maxBytes + limits.maxBodies * ENTRY_OVERHEAD_BYTES,
    });
  }

  /** The parameters these bytes were read as, if remembered. */
  find(bytes: Buffer): T | undefined {
    const same = this.#byLength.get(bytes.length);
    if (same) for (const known of same) if (known.bytes.equals(bytes)) return known.sent;
    return undefined;
  }

  /** Remembers what `bytes` were read as (a copy of the bytes: the request's may be a slice of the socket's read buffer). */
  remember(bytes: Buffer, sent: T): void {
    const { maxBodies, maxBytes } = this.limits;
    if (bytes.length > maxBytes || this.find(bytes)) return;
    if (this.#count >= maxBodies || this.#bytes + bytes.length > maxBytes) this.#clear();
    let same = this.#byLength.get(bytes.length);
    if (!same) this.#byLength.set(bytes.length, (same = []));
    if (same.length >= SAME_LENGTH_BODIES) this.#drop(same.shift()!);
    const copy = Buffer.allocUnsafeSlow(bytes.length);
    bytes.copy(copy);
    same.push({ bytes: copy, sent });
    this.#count++;
    this.#bytes += copy.length;
  }

  #drop(known: Known<T>): void {
    this.#count--;
    this.#bytes -= known.bytes.length;
  }

  #clear(): void {
    this.#byLength.clear();
    this.#count = 0;
    this.#bytes = 0;
  }
}
