import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compressionEffort, CompressionSlots, DEFAULT_MAX_CONCURRENT_COMPRESSIONS, fittedWindow, inline, INLINE_MAX_BYTES, outputChunk } from '../../src/plugins/compression.js';
import { encoder } from '../../src/plugins/wire-encoding.js';
import { operation, useTestGateway } from '../helpers/gateway.js';

// The response cache is off (the helper's default): every answer is a one-off, as in the flood of issue 33 item 8.
const gw = useTestGateway();
afterEach(() => vi.restoreAllMocks());

const MARKETS = operation('MarketsPage');

async function post(first: number, encoding = 'br'): Promise<Response> {
  return gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'accept-encoding': encoding },
    body: JSON.stringify({ query: MARKETS, variables: { first } }),
  });
}

describe('compression effort', () => {
  it('gives a one-off answer little effort and a cached one more, by size', () => {
    expect(compressionEffort('br', 20_000, false)).toEqual({ coding: 'br', level: 4, lgwin: 15 });
    expect(compressionEffort('br', 180_000, false)).toEqual({ coding: 'br', level: 0, lgwin: 18 });
    expect(compressionEffort('br', 3_000_000, false)).toEqual({ coding: 'br', level: 0, lgwin: 22 });
    expect(compressionEffort('br', 180_000, true)).toEqual({ coding: 'br', level: 5, lgwin: 18 });
    expect(compressionEffort('gzip', 180_000, false)).toEqual({ coding: 'gzip', level: 1 });
    expect(compressionEffort('gzip', 180_000, true)).toEqual({ coding: 'gzip', level: 6 });
  });

  it("fits brotli's window to the body, within brotli's bounds", () => {
    expect(fittedWindow(1)).toBe(10);
    expect(fittedWindow(1024)).toBe(10);
    expect(fittedWindow(1025)).toBe(11);
    expect(fittedWindow(183_017)).toBe(18);
    expect(fittedWindow(100 * 1024 * 1024)).toBe(24);
  });

  it('compresses an uncached 100-market page at one-off effort, in a window of its size', async () => {
    const encode = vi.spyOn(encoder, 'encode');
    const response = await post(100);
    expect(response.headers.get('content-encoding')).toBe('br');
    const text = brotliDecompressSync(Buffer.from(await response.arrayBuffer())).toString();
    expect(JSON.parse(text).data.markets.edges).toHaveLength(100);
    expect(encode).toHaveBeenCalledTimes(1);
    const [coding, body, effort] = encode.mock.calls[0]!;
    expect(coding).toBe('br');
    expect(effort).toEqual({ coding: 'br', level: 0, lgwin: fittedWindow(body.length) });
  });
});

describe('concurrent compressions', () => {
  it('sends answers past the cap as they are, and compresses again once a slot is free', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const real = encoder.encode;
    const encode = vi.spyOn(encoder, 'encode').mockImplementation(async (...args) => {
      await gate;
      return real(...args);
    });
    const flood = DEFAULT_MAX_CONCURRENT_COMPRESSIONS + 3;
    const pending = Array.from({ length: flood }, () => post(100));
    // Past the cap the answers leave at once, uncompressed, while the first ones still wait for their slot.
    const settled: Response[] = [];
    for (const p of pending) void p.then((r) => settled.push(r));
    await vi.waitFor(() => expect(settled).toHaveLength(flood - DEFAULT_MAX_CONCURRENT_COMPRESSIONS), { timeout: 20_000, interval: 20 });
    expect(settled.map((r) => r.headers.get('content-encoding'))).toEqual(Array(flood - DEFAULT_MAX_CONCURRENT_COMPRESSIONS).fill(null));
    for (const r of settled) expect((await r.json()).data.markets.edges).toHaveLength(100);
    expect(encode).toHaveBeenCalledTimes(DEFAULT_MAX_CONCURRENT_COMPRESSIONS);

    release();
    const all = await Promise.all(pending);
    expect(all.filter((r) => r.headers.get('content-encoding') === 'br')).toHaveLength(DEFAULT_MAX_CONCURRENT_COMPRESSIONS);
    // The slots are free again: the next answer is compressed.
    expect((await post(100)).headers.get('content-encoding')).toBe('br');
  }, 40_000);

  it('counts a slot free again when a compression fails', async () => {
    const slots = new CompressionSlots(1);
    await expect(slots.tryStart(() => Promise.reject(new Error('zlib failed')))).rejects.toThrow('zlib failed');
    expect(slots.running).toBe(0);
    const held = slots.tryStart(() => new Promise<number>(() => {}));
    expect(held).not.toBeNull();
    expect(slots.tryStart(() => Promise.resolve(1))).toBeNull();
  });
});

describe('where an answer is compressed', () => {
  it('compresses a large one-off answer with brotli 0 on the event loop up to 256 KiB, anything else on the pool', () => {
    expect(inline(183_017, compressionEffort('br', 183_017, false))).toBe(true);
    expect(inline(INLINE_MAX_BYTES + 1, compressionEffort('br', INLINE_MAX_BYTES + 1, false))).toBe(false);
    expect(inline(183_017, compressionEffort('br', 183_017, true))).toBe(false);
    expect(inline(20_000, compressionEffort('br', 20_000, false))).toBe(false);
    expect(inline(183_017, compressionEffort('gzip', 183_017, false))).toBe(false);
  });
});

describe("zlib's output chunk", () => {
  it('holds a one-off answer compressed in one chunk, from 16 KiB to 1 MiB', () => {
    expect(outputChunk(1_000)).toBe(16 * 1024);
    expect(outputChunk(183_017)).toBe(45_755);
    expect(outputChunk(100 * 1024 * 1024)).toBe(1024 * 1024);
    const page = Buffer.from(JSON.stringify({ data: { markets: Array.from({ length: 2_000 }, (_, i) => ({ id: `lending:${i}`, apy: i / 7 })) } }));
    expect(brotliCompressSync(page, { params: { [zlib.BROTLI_PARAM_QUALITY]: 0 } }).length).toBeLessThan(outputChunk(page.length));
  });
});
