import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_BODY_BYTES } from '../../src/app.js';
import { boundedParseCache, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NESTING, nestsDeeperThan } from '../../src/plugins/document-limits.js';
import { operation, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** `{ __typename }` made unique and `bytes` long by a comment, as in issue 12: no tokens added. */
const padded = (n: number, bytes: number) => {
  const head = `{ __typename } # ${n} `;
  return head + 'x'.repeat(bytes - head.length);
};

describe('documents larger than the parser should see', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  const post = async (body: string) => {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    return { status: response.status, body: await response.json().catch((): any => null) };
  };

  it(`refuses a document over ${MAX_DOCUMENT_BYTES} bytes with 413 QUERY_TOO_COMPLEX, before parsing it`, async () => {
    const result = await post(JSON.stringify({ query: padded(1, MAX_DOCUMENT_BYTES + 1) }));
    expect(result.status).toBe(413);
    expect(result.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(result.body.errors[0].message).toBe(`The document is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
  });

  it('counts bytes, not characters', async () => {
    const result = await post(JSON.stringify({ query: `{ __typename } # ${'é'.repeat(MAX_DOCUMENT_BYTES / 2)}` }));
    expect(result.status).toBe(413);
  });

  it('runs a document just under the limit', async () => {
    const result = await post(JSON.stringify({ query: padded(2, MAX_DOCUMENT_BYTES) }));
    expect(result).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it(`refuses a body over ${MAX_REQUEST_BODY_BYTES} bytes with 413, and takes one just under it`, async () => {
    const addresses = (bytes: number) => JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(bytes) } });
    expect((await post(addresses(MAX_REQUEST_BODY_BYTES))).status).toBe(413);
    const fits = await post(addresses(MAX_REQUEST_BODY_BYTES - 100));
    expect(fits.status).toBe(200);
  });
});

describe('documents nested deeper than the parser can recurse', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  it.each([
    ['a default value of lists 4,000 deep', `query($v: String = ${'['.repeat(4000)}${']'.repeat(4000)}) { __typename }`],
    ['an argument object 5,000 deep', `{ searchAssets(query: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}) { totalCount } }`],
    ['selection sets 3,000 deep', `{ ${'a { '.repeat(3000)}b${' }'.repeat(3000)} }`],
    [`lists ${MAX_DOCUMENT_NESTING} deep in parentheses`, `query($v: [String] = ${'['.repeat(MAX_DOCUMENT_NESTING)}${']'.repeat(MAX_DOCUMENT_NESTING)}) { __typename }`],
  ])('refuses %s with 400 QUERY_TOO_COMPLEX, not 500', async (_name, query) => {
    const result = await gw.execute(query);
    expect(result.status).toBe(400);
    expect(result.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_COMPLEX');
    expect(result.errors?.[0]?.message).toBe(`The document nests brackets more than ${MAX_DOCUMENT_NESTING} deep.`);
  });

  it('counts no brackets inside strings, block strings or comments', () => {
    const deep = '['.repeat(100);
    expect(nestsDeeperThan(`{ a(s: "${deep}\\" ${deep}") }`, 3)).toBe(false);
    expect(nestsDeeperThan(`{ a(s: """${deep} \\""" ${deep}""") }`, 3)).toBe(false);
    expect(nestsDeeperThan(`{ a # ${deep}\n b }`, 3)).toBe(false);
    expect(nestsDeeperThan(`{ a(s: "x") { b(s: """y""") { c { d } } } }`, 3)).toBe(true);
  });

  it('passes every real frontend operation', () => {
    const names = ['AssetDetail', 'ChannelSetup', 'MarketsPage', 'MobileHome', 'SearchAssets', 'SendNotification', 'ViewerInbox', 'WalletHistory', 'WalletPositions'];
    for (const name of names) expect(nestsDeeperThan(operation(name), 24), name).toBe(false);
  });
});

describe('the parse caches', () => {
  it('hold at most their size in bytes, however many distinct documents arrive', () => {
    const { documentCache, errorCache } = boundedParseCache({ maxDocumentBytes: 1024 * 1024, maxErrorBytes: 256 * 1024 });
    for (let n = 0; n < 200; n++) {
      const source = padded(n, 60 * 1024);
      documentCache.set(source, parse(source));
      errorCache.set(`${source}{`, new Error('Syntax Error'));
    }
    expect(documentCache.calculatedSize).toBeLessThanOrEqual(1024 * 1024);
    expect(documentCache.size).toBeLessThan(200);
    expect(errorCache.calculatedSize).toBeLessThanOrEqual(256 * 1024);
    // The newest stay.
    expect(documentCache.get(padded(199, 60 * 1024))).toBeDefined();
  });

  it('weigh a document by its tokens, not only its text', () => {
    const { documentCache } = boundedParseCache();
    const short = '{ __typename }';
    const dense = `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    documentCache.set(short, parse(short));
    documentCache.set(dense, parse(dense));
    // 3,002 tokens (a name, a colon and a field per alias, the braces, start and end): 300 bytes each.
    expect(documentCache.calculatedSize).toBeGreaterThan(3000 * 300);
  });
});
