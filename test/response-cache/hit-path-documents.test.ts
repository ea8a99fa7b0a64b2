import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildManifest } from '../../scripts/documents-manifest.js';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { operation, useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { expectSameAnswer, parts, portOf, rawPost, sendRaw, useParityServers } from '../helpers/hit-parity.js';

/**
 * Trusted documents (`documentId`, the manifest) and APQ hashes answered on the fast path for hits
 * (src/fast-path/persisted.ts): the same status, headers and bytes as Yoga's pipeline, which looks
 * the document up with the trusted-documents plugins; whatever those plugins refuse, the pipeline
 * answers. Each request goes to a server without the fast path, then to one with it, over one gateway.
 */
const manifestPath = join(mkdtempSync(join(tmpdir(), 'documents-')), 'manifest.json');
writeFileSync(manifestPath, JSON.stringify(buildManifest(new URL('../operations', import.meta.url).pathname)));

const marketsPage = operation('MarketsPage');
const marketsPageId = documentHash(marketsPage);
const mobileHomeId = documentHash(operation('MobileHome'));
const variables = { first: 3, filter: { types: ['LENDING'] } };
const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

/** A raw POST of this body, with these headers. */
const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  rawPost(
    JSON.stringify(body),
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join(''),
  );
const get = (params: Record<string, string>, headers = '') => `GET /graphql?${new URLSearchParams(params).toString()} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headers}\r\n`;

describe('trusted documents on the fast path (a manifest, only its documents run, APQ on)', () => {
  const gw: TestGateway = useTestGateway({ config: { responseCache: true, persistedDocuments: manifestPath, allowArbitraryDocuments: false, apq: true } });
  const { servers, bothRaw } = useParityServers(gw);

  const hits: [string, () => string][] = [
    ['documentId in a POST body', () => post({ documentId: marketsPageId, variables })],
    ['documentId sha256:<hex>', () => post({ documentId: `sha256:${marketsPageId}`, variables })],
    ['documentId as a GET parameter', () => get({ documentId: marketsPageId, variables: JSON.stringify(variables) })],
    ['an APQ hash alone', () => post({ extensions: apq(marketsPageId), variables })],
    ['an APQ hash alone in a GET', () => get({ extensions: JSON.stringify(apq(marketsPageId)), variables: JSON.stringify(variables) })],
    ["the caller's own screen by documentId", () => post({ documentId: mobileHomeId }, gw.viewerHeaders)],
  ];
  for (const [name, raw] of hits) {
    it(`answers a hit of ${name} as the pipeline does`, async () => {
      // The first request stores the entry; the pipeline's first hit makes its tag.
      for (let i = 0; i < 2; i++) expect(parts(await sendRaw(portOf(servers.plain), raw()), false).head).toMatch(/^HTTP\/1\.1 200 OK/);
      const answers = await bothRaw(raw());
      expect(answers.fast).toBe(true);
      expect(answers.viaFast.head).toMatch(/\r\ncache-control: (public|private), max-age=\*/);
      expectSameAnswer(answers);
    });
  }

  it('answers the entry a documentId stored when the same document is named by its APQ hash, without an upstream call', async () => {
    const byId = { documentId: marketsPageId, variables: { first: 4 } };
    await sendRaw(portOf(servers.plain), post(byId));
    gw.sim.controls.resetCounts();
    const answers = await bothRaw(post({ extensions: apq(marketsPageId), variables: { first: 4 } }));
    expect(answers.fast).toBe(true);
    expectSameAnswer(answers);
    expect(gw.sim.controls.counts()).toEqual({});
  });

  it("answers a browser's revalidation of a documentId GET with the pipeline's 304", async () => {
    const params = { documentId: marketsPageId, variables: JSON.stringify({ first: 5 }) };
    await sendRaw(portOf(servers.plain), get(params));
    const etag = /\r\netag: ([^\r]+)/.exec(parts(await sendRaw(portOf(servers.plain), get(params)), false).head)![1]!;
    const answers = await bothRaw(get(params, `If-None-Match: ${etag}\r\n`));
    expect(answers.fast).toBe(true);
    expect(answers.viaFast.head).toMatch(/^HTTP\/1\.1 304 Not Modified/);
    expectSameAnswer(answers);
  });

  it("leaves to the pipeline what it refuses (the manifest's own text sent as a query, an unknown id or hash, a text with an id) and a document named twice", async () => {
    // Cached by id first: the text itself must still be refused where only the manifest's documents run.
    await sendRaw(portOf(servers.plain), post({ documentId: marketsPageId, variables }));
    const refused = [
      post({ query: marketsPage, variables }),
      post({ documentId: 'f'.repeat(64), variables }),
      post({ extensions: apq('e'.repeat(64)), variables }),
      post({ query: marketsPage, documentId: marketsPageId, variables }),
    ];
    // Named twice: the pipeline answers it (the id wins, the hash is checked against its text).
    const namedTwice = post({ documentId: marketsPageId, extensions: apq(marketsPageId), variables });
    for (const raw of [...refused, namedTwice]) {
      const answers = await bothRaw(raw);
      expect(answers.fast).toBe(false);
      if (raw !== namedTwice) expect(answers.viaFast.head).not.toMatch(/^HTTP\/1\.1 200/);
      expect(answers.viaFast.head).toBe(answers.viaPipeline.head);
      expect(answers.viaFast.body.equals(answers.viaPipeline.body)).toBe(true);
    }
  });
});

describe('APQ on the fast path (no manifest)', () => {
  const gw: TestGateway = useTestGateway({ config: { responseCache: true, apq: true } });
  const { servers, bothRaw } = useParityServers(gw);
  const query = '{ markets(first: 2) { edges { node { marketId } } } }';

  it('answers a registered hash as the pipeline does, and leaves an unknown hash and a documentId to it', async () => {
    // Registered by its first request (the text with its hash), then stored, then hit.
    await sendRaw(portOf(servers.plain), post({ query, extensions: apq(documentHash(query)) }));
    for (let i = 0; i < 2; i++) await sendRaw(portOf(servers.plain), post({ extensions: apq(documentHash(query)) }));
    const hit = await bothRaw(post({ extensions: apq(documentHash(query)) }));
    expect(hit.fast).toBe(true);
    expect(hit.viaFast.head).toMatch(/^HTTP\/1\.1 200 OK/);
    expectSameAnswer(hit);
    for (const raw of [post({ extensions: apq('d'.repeat(64)) }), post({ documentId: documentHash(query) }), post({ query, extensions: apq(documentHash(query)) })]) {
      const answers = await bothRaw(raw);
      expect(answers.fast).toBe(false);
      expect(answers.viaFast.head).toBe(answers.viaPipeline.head);
      expect(answers.viaFast.body.equals(answers.viaPipeline.body)).toBe(true);
    }
  });
});

describe('a stale trusted document on the fast path', () => {
  const TTL_MS = 300;
  const gw: TestGateway = useTestGateway({
    config: {
      responseCache: true,
      persistedDocuments: manifestPath,
      allowArbitraryDocuments: false,
      responseCacheGraceMs: 60_000,
      responseCacheTtlMs: { markets: TTL_MS, prices: TTL_MS, metadata: TTL_MS, private: TTL_MS },
    },
  });
  const { servers } = useParityServers(gw);
  const executions = async () => Number(/^gateway_executions_total\{shared="false"\} (\d+)/m.exec(await gw.services.registry.metrics())?.[1] ?? 0);

  it('is refreshed by its id, where a text of its own would be refused', async () => {
    const raw = post({ documentId: marketsPageId, variables: { first: 2 } });
    await sendRaw(portOf(servers.fast), raw);
    const before = await executions();
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    const answered = servers.answeredFast;
    const stale = parts(await sendRaw(portOf(servers.fast), raw), false);
    expect(servers.answeredFast).toBe(answered + 1);
    expect(stale.maxAge).toBe(0);
    // Sent again as its text, the refresh would be refused before it executes.
    await expect.poll(executions).toBe(before + 1);
  });
});
