import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_BODY_LIMIT, InFlightBytes } from '../../src/upstream/body.js';
import { exchange, type Answer } from '../../src/upstream/exchange.js';

/** One exchange read through undici's dispatch handler: the answer, its caps and the in-flight budget. */

let server: Server;
let origin: string;
const agent = new Agent({ connections: 4 });

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const n = Number(url.searchParams.get('bytes') ?? 0);
    const status = Number(url.searchParams.get('status') ?? 200);
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(JSON.stringify({ method: req.method, body, accept: req.headers['accept'] })));
      return;
    }
    if (url.pathname === '/chunked') {
      // No content-length: the cap must hold while reading.
      res.writeHead(status, { 'content-type': 'application/json' });
      const piece = 'x'.repeat(16 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < n) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      return more();
    }
    const body = n > 0 ? 'y'.repeat(n) : JSON.stringify({ ok: true, path: url.pathname });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': '7' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (path: string, limits = { maxBytes: 1024 * 1024 }, signal?: AbortSignal): Promise<Answer> =>
  exchange(agent, 'assets', { origin, path, method: 'GET', headers: { accept: 'application/json' }, signal }, limits, (a) => a);

describe('exchange', () => {
  it('reads a 2xx answer whole, with its status, headers and byte count', async () => {
    const answer = await get('/v0/assets/a');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ ok: true, path: '/v0/assets/a' });
    expect(answer.bytes).toBe(Buffer.byteLength(answer.text));
    expect(answer.headers['retry-after']).toBe('7');
  });

  it('sends a POST body and its headers', async () => {
    const answer = await exchange(agent, 'alerts', { origin, path: '/echo', method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/json' }, body: '{"a":1}' }, { maxBytes: 1024 }, (a) => a);
    expect(JSON.parse(answer.text)).toEqual({ method: 'POST', body: '{"a":1}', accept: 'application/json' });
  });

  it('fails a 2xx answer whose declared length is over the cap, and one that grows past it while read', async () => {
    await expect(get('/big?bytes=5000', { maxBytes: 4096 })).rejects.toMatchObject({ code: 'EBODYTOOLARGE', status: 200 });
    await expect(get('/chunked?bytes=2000000', { maxBytes: 100_000 })).rejects.toMatchObject({ code: 'EBODYTOOLARGE' });
    // The agent is still usable afterwards.
    expect((await get('/v0/assets/b')).status).toBe(200);
  });

  it('takes bytes from the in-flight budget while read and gives every one back, answered or failed', async () => {
    const inFlight = new InFlightBytes(64 * 1024);
    let usedWhileParsing = -1;
    await exchange(agent, 'assets', { origin, path: '/x?bytes=3000', method: 'GET', headers: {} }, { maxBytes: 1e6, inFlight }, (a) => {
      usedWhileParsing = inFlight.used;
      return a;
    });
    expect(usedWhileParsing).toBe(3000);
    expect(inFlight.used).toBe(0);
    await expect(get('/chunked?bytes=1000000', { maxBytes: 1e7, inFlight } as never)).rejects.toMatchObject({ code: 'EINFLIGHTBYTES' });
    expect(inFlight.used).toBe(0);
  });

  it('reads an error answer within the error cap, and one over it as empty text', async () => {
    const small = await get('/x?status=429');
    expect(small.status).toBe(429);
    expect(JSON.parse(small.text)).toMatchObject({ ok: true });
    const big = await get(`/x?status=500&bytes=${ERROR_BODY_LIMIT + 1}`);
    expect(big).toMatchObject({ status: 500, text: '' });
  });

  it('drops a 3xx body', async () => {
    expect(await get('/x?status=304')).toMatchObject({ status: 304, text: '' });
  });

  it('ends with the signal, rejecting with its reason, before or during the call', async () => {
    const before = AbortSignal.abort(new Error('gone before'));
    await expect(get('/v0/assets/a', undefined, before)).rejects.toThrow('gone before');
    const controller = new AbortController();
    const pending = get('/hang', undefined, controller.signal);
    setTimeout(() => controller.abort(new Error('gone during')), 20);
    await expect(pending).rejects.toThrow('gone during');
  });

  it('rejects with the connection error when nothing listens', async () => {
    const dead = exchange(agent, 'assets', { origin: 'http://127.0.0.1:1', path: '/', method: 'GET', headers: {} }, { maxBytes: 1024 }, (a) => a);
    await expect(dead).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('works on a MockAgent as on the real one', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    mock.get('http://upstream.test').intercept({ path: '/v0/assets/m', method: 'GET' }).reply(200, { id: 'm' });
    const answer = await exchange(mock, 'assets', { origin: 'http://upstream.test', path: '/v0/assets/m', method: 'GET', headers: {} }, { maxBytes: 1024 }, (a) => a);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ id: 'm' });
    await mock.close();
  });
});
