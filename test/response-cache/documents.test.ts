import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDocumentPolicies } from '../../src/response-cache/documents.js';
import { schema } from '../../src/schema/index.js';

const ttlMs = loadConfig({}).responseCacheTtlMs;

/** Documents of one length: `{ markets(first: N) { ... } }` with N of the same number of digits, and the viewer's. */
const marketsOf = (n: number) => `{ markets(first: ${n}) { edges { node { marketId } } } }`;
const viewerOf = (n: number) => `{ viewer { id } } # ${n}`.padEnd(marketsOf(10).length, ' ');

describe('the remembered cache policies (response-cache/documents.ts)', () => {
  it('finds each document by its text among those of its length, with its own policy', () => {
    const documents = createDocumentPolicies({ ttlMs, maxDocuments: 100, admissible: () => true });
    documents.useSchema(schema);
    const texts = [10, 11, 12].flatMap((n) => [marketsOf(n), viewerOf(n)]);
    expect(new Set(texts.map((t) => t.length)).size).toBe(1);
    const known = texts.map((text) => documents.policyOf(text)!);
    texts.forEach((text, i) => {
      // A new string of the same text (as a request's body gives it) finds the same remembered document.
      const again = documents.policyOf(` ${text}`.slice(1))!;
      expect(again).toBe(known[i]);
      expect(again.policy?.scope).toBe(text.includes('viewer') ? 'PRIVATE' : 'PUBLIC');
    });
  });

  it('keeps at most 8 documents of one length: a ninth replaces the oldest, the others stay', () => {
    const documents = createDocumentPolicies({ ttlMs, maxDocuments: 100, admissible: () => true });
    documents.useSchema(schema);
    const texts = Array.from({ length: 9 }, (_, i) => marketsOf(10 + i));
    const known = texts.map((text) => documents.policyOf(text)!);
    // The first was replaced (its policy is read again: a new object); the other eight are still held.
    expect(documents.policyOf(texts[0]!)).not.toBe(known[0]);
    expect(documents.policyOf(texts[8]!)).toBe(known[8]);
    expect(documents.policyOf(texts[4]!)).toBe(known[4]);
  });

  it('forgets every document when the schema changes, and refuses a text the gateway would not parse', () => {
    const documents = createDocumentPolicies({ ttlMs, maxDocuments: 100, admissible: (query) => query.length < 100 });
    documents.useSchema(schema);
    const first = documents.policyOf(marketsOf(10))!;
    documents.useSchema(schema);
    expect(documents.policyOf(marketsOf(10))).toBe(first);
    documents.useSchema(Object.create(schema) as typeof schema);
    expect(documents.policyOf(marketsOf(10))).not.toBe(first);
    expect(documents.policyOf(`${marketsOf(10)}${' '.repeat(100)}`)).toBeNull();
  });
});
