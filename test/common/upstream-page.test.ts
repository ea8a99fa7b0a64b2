import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { encodeCursor } from '../../src/schema/common/cursor.js';
import { CursorSigner, cursorKeys } from '../../src/stores/cursor-signer.js';
import { boundCursors, resumeInUpstreamPage, type UpstreamPosition } from '../../src/schema/common/upstream-page.js';

/** Readable cursors: each connection has its own format; the algorithm only needs a round trip. */
const at = (cursor: string | null, skip: number): string => JSON.stringify({ cursor, skip });
const cursors = {
  encode: (position: UpstreamPosition) => at(position.cursor, position.skip),
  decode: (after: string) => JSON.parse(after) as UpstreamPosition,
};
const MAX = 100;

/** An upstream listing of `total` items whose cursor is the offset its next page starts at. */
function upstream(total: number) {
  const all = Array.from({ length: total }, (_, i) => `item${i}`);
  return (cursor: string | null, limit: number) => {
    const from = cursor === null ? 0 : Number(cursor);
    const to = from + limit;
    return { items: all.slice(from, to), next: to < total ? String(to) : null };
  };
}

describe('resumeInUpstreamPage', () => {
  it('reads the first upstream page for `first` items when there is no `after`', () => {
    const read = resumeInUpstreamPage({ first: 3, after: null }, MAX, cursors);
    expect({ cursor: read.cursor, limit: read.limit }).toEqual({ cursor: null, limit: 3 });

    const page = read.page(['a', 'b', 'c'], 'p2');
    expect(page.edges).toEqual([
      { cursor: at(null, 1), node: 'a' },
      { cursor: at(null, 2), node: 'b' },
      // The last item of the upstream page: its cursor starts the next upstream page fresh.
      { cursor: at('p2', 0), node: 'c' },
    ]);
    expect(page.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: false, startCursor: at(null, 1), endCursor: at('p2', 0) });
  });

  it('re-reads the page `after` points into from its start, with room for the items it skips', () => {
    const read = resumeInUpstreamPage({ first: 2, after: at('p1', 3) }, MAX, cursors);
    expect({ cursor: read.cursor, limit: read.limit }).toEqual({ cursor: 'p1', limit: 5 });

    const page = read.page(['a', 'b', 'c', 'd', 'e'], 'p2');
    expect(page.edges).toEqual([
      { cursor: at('p1', 4), node: 'd' },
      { cursor: at('p2', 0), node: 'e' },
    ]);
    expect(page.pageInfo.hasPreviousPage).toBe(true);
  });

  it('an empty `after` is the first page, with nothing before it', () => {
    const read = resumeInUpstreamPage({ first: 2, after: '' }, MAX, cursors);
    expect({ cursor: read.cursor, limit: read.limit }).toEqual({ cursor: null, limit: 2 });
    expect(read.page(['a', 'b'], 'p2').pageInfo.hasPreviousPage).toBe(false);
  });

  it('asks for no more than the upstream allows, and returns only what lies past the skip', () => {
    const read = resumeInUpstreamPage({ first: 5, after: at('p1', 98) }, MAX, cursors);
    expect(read.limit).toBe(MAX);

    const items = Array.from({ length: MAX }, (_, i) => i);
    const page = read.page(items, 'p2');
    expect(page.edges.map((edge) => edge.node)).toEqual([98, 99]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, endCursor: at('p2', 0) });
  });

  it('an empty last page: no edges, no next page, no cursors', () => {
    const page = resumeInUpstreamPage({ first: 3, after: null }, MAX, cursors).page([], null);
    expect(page).toEqual({
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  it('an empty page the upstream continues after: the end cursor moves on to its next page', () => {
    const page = resumeInUpstreamPage({ first: 3, after: at('p1', 0) }, MAX, cursors).page([], 'p2');
    expect(page).toEqual({
      edges: [],
      pageInfo: { hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: at('p2', 0) },
    });
  });

  it('skip at the end of a page with a next upstream cursor: no edges, the end cursor starts that page', () => {
    const page = resumeInUpstreamPage({ first: 2, after: at('p1', 3) }, MAX, cursors).page(['a', 'b', 'c'], 'p2');
    expect(page.edges).toEqual([]);
    expect(page.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true, startCursor: null, endCursor: at('p2', 0) });
  });

  it('skip at the end of the last page: no edges and nothing next', () => {
    const page = resumeInUpstreamPage({ first: 2, after: at('p1', 3) }, MAX, cursors).page(['a', 'b', 'c'], null);
    expect(page.edges).toEqual([]);
    expect(page.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
  });

  it('`first` larger than the rest of the last page: the rest, and no next page', () => {
    const page = resumeInUpstreamPage({ first: 5, after: at('p1', 2) }, MAX, cursors).page(['a', 'b', 'c', 'd'], null);
    expect(page.edges).toEqual([
      { cursor: at('p1', 3), node: 'c' },
      // No upstream page follows: the cursor stays on this one, past its end.
      { cursor: at('p1', 4), node: 'd' },
    ]);
    expect(page.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: at('p1', 3), endCursor: at('p1', 4) });
  });

  it('`first` larger than the rest of a page the upstream continues after: the rest, and a next page', () => {
    const page = resumeInUpstreamPage({ first: 5, after: at('p1', 2) }, MAX, cursors).page(['a', 'b', 'c', 'd'], 'p2');
    expect(page.edges.map((edge) => edge.cursor)).toEqual([at('p1', 3), at('p2', 0)]);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, endCursor: at('p2', 0) });
  });

  it('items left in the page read mean a next page even without an upstream cursor', () => {
    const page = resumeInUpstreamPage({ first: 2, after: null }, MAX, cursors).page(['a', 'b', 'c'], null);
    expect(page.edges.map((edge) => edge.node)).toEqual(['a', 'b']);
    expect(page.pageInfo).toMatchObject({ hasNextPage: true, endCursor: at(null, 2) });
  });

  it('refuses `after` through the connection’s decode, before any read', () => {
    const refuse = () => {
      throw new Error('not a cursor of this connection');
    };
    expect(() => resumeInUpstreamPage({ first: 2, after: 'junk' }, MAX, { ...cursors, decode: refuse })).toThrow(
      'not a cursor of this connection',
    );
  });

  it('walks a listing page by page, and resumes right after any edge', () => {
    const listing = upstream(10);
    const walk = (after: string | null, first: number): string[] => {
      const seen: string[] = [];
      for (let hasNextPage = true; hasNextPage; ) {
        const read = resumeInUpstreamPage({ first, after }, MAX, cursors);
        const { items, next } = listing(read.cursor, read.limit);
        const page = read.page(items, next);
        seen.push(...page.edges.map((edge) => edge.node));
        ({ hasNextPage } = page.pageInfo);
        after = page.pageInfo.endCursor;
      }
      return seen;
    };
    const all = Array.from({ length: 10 }, (_, i) => `item${i}`);
    expect(walk(null, 3)).toEqual(all);

    const read = resumeInUpstreamPage({ first: 4, after: null }, MAX, cursors);
    const { items, next } = listing(read.cursor, read.limit);
    const second = read.page(items, next).edges[1]!;
    expect(second.node).toBe('item1');
    expect(walk(second.cursor, 3)).toEqual(all.slice(2));
  });
});

describe('boundCursors', () => {
  const signing = new CursorSigner(cursorKeys(loadConfig({})));
  const options = { kind: 'things', fingerprint: 'f1', maxSkip: 20, notOurs: 'not ours', otherArguments: 'other arguments', signing };
  const things = boundCursors(options);

  /** The BAD_USER_INPUT message a decode throws, or null when it decodes. */
  function refusal(cursors: ReturnType<typeof boundCursors>, after: string): string | null {
    try {
      cursors.decode(after);
      return null;
    } catch (error) {
      expect((error as { extensions?: unknown }).extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'after' });
      return (error as Error).message;
    }
  }

  it('gives back the position it encoded', () => {
    for (const position of [{ cursor: null, skip: 0 }, { cursor: 'page-2', skip: 20 }]) {
      expect(things.decode(things.encode(position))).toEqual(position);
    }
  });

  it('refuses a cursor issued for other arguments, saying so', () => {
    const other = boundCursors({ ...options, fingerprint: 'f2' }).encode({ cursor: null, skip: 1 });
    expect(refusal(things, other)).toBe('other arguments');
  });

  it("refuses another connection's cursor, and anything it did not issue, as not its own", () => {
    const position = { cursor: 'p', skip: 1 };
    const forged = (payload: unknown) => encodeCursor(signing, payload);
    for (const after of [
      boundCursors({ ...options, kind: 'others' }).encode(position),
      forged({ k: 'things', f: 'f1', c: 'p', o: 21 }), // skips more than a read takes
      forged({ k: 'things', f: 'f1', c: 'p', o: 1.5 }),
      forged({ k: 'things', f: 'f1', c: 'a b', o: 1 }), // not an upstream cursor
      forged({ k: 'things', f: 'f1', c: 'x'.repeat(513), o: 1 }),
      forged({ k: 'things', c: 'p', o: 1 }),
      'not-base64url!',
    ]) {
      expect(refusal(things, after), after).toBe('not ours');
    }
    // The upstream cursor's length limit is the connection's to raise.
    const long = { cursor: 'x'.repeat(1024), skip: 1 };
    const roomy = boundCursors({ ...options, maxUpstreamCursor: 1024 });
    expect(roomy.decode(roomy.encode(long))).toEqual(long);
  });
});
