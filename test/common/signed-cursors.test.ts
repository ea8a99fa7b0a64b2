import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { decodeCursor, encodeCursor } from '../../src/schema/common/cursor.js';
import { CursorSigner, cursorKeyRefusal, cursorKeys } from '../../src/stores/cursor-signer.js';
import { totalCalls, useTestGateway } from '../helpers/gateway.js';

const SEARCH = /* GraphQL */ `
  query ($first: Int, $after: String) {
    searchAssets(query: "sol", first: $first, after: $after) { pageInfo { endCursor } edges { node { assetId } } }
  }
`;

/** A cursor's payload, edited as a caller could, and put back in the cursor's shape with its old MAC. */
function edit(cursor: string, change: (payload: Record<string, unknown>) => void): string {
  const dot = cursor.lastIndexOf('.');
  const payload = JSON.parse(Buffer.from(cursor.slice(0, dot), 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${Buffer.from(JSON.stringify(payload)).toString('base64url')}${cursor.slice(dot)}`;
}

const accept = (payload: unknown) => payload;
const invalid = { field: 'after', message: 'not ours' };

describe('signed cursors', () => {
  const gw = useTestGateway({ resetControls: true });

  it('an edited cursor (an upstream cursor asking for 100,000 items) is refused with BAD_USER_INPUT before any upstream call', async () => {
    const first = await gw.execute(SEARCH, { first: 5 });
    expect(first.errors).toBeUndefined();
    const cursor: string = first.data!['searchAssets'].pageInfo.endCursor;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);

    const forged = edit(cursor, (p) => {
      p['c'] = `${String(p['c'])}&limit=100000`;
    });
    // Without the MAC too, as the cursors before signing looked.
    const unsigned = forged.slice(0, forged.lastIndexOf('.'));
    gw.sim.controls.resetCounts();
    for (const after of [forged, unsigned]) {
      const res = await gw.execute(SEARCH, { first: 5, after });
      expect(res.status).toBe(200);
      expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    }
    expect(totalCalls(gw)).toBe(0);

    // The cursor as issued still pages on: one search call.
    const next = await gw.execute(SEARCH, { first: 5, after: cursor });
    expect(next.errors).toBeUndefined();
    expect(totalCalls(gw)).toBe(1);
  });

  it('an edited markets cursor (another market to resume after) is refused alike, with no upstream call', async () => {
    const res = await gw.execute(`{ markets(first: 2) { pageInfo { endCursor } } }`);
    const cursor: string = res.data!['markets'].pageInfo.endCursor;
    const forged = edit(cursor, (p) => {
      p['m'] = 'someone.else';
    });
    gw.sim.controls.resetCounts();
    const refused = await gw.execute(`query ($after: String) { markets(first: 2, after: $after) { edges { cursor } } }`, { after: forged });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
    expect(totalCalls(gw)).toBe(0);
  });
});

describe('cursor keys', () => {
  const env = { ALERTS_URL: 'http://a:1', MARKETS_URL: 'http://m:1', ASSETS_URL: 'http://s:1' };

  it('rotate: a cursor signed with CURSOR_SECRET_PREVIOUS is accepted during the grace period, one of an unknown key never', () => {
    const signer = new CursorSigner(cursorKeys(loadConfig({ ...env, CURSOR_SECRET: 'old-secret' })));
    const old = encodeCursor(signer, { o: 3 });
    signer.setKeys(cursorKeys(loadConfig({ ...env, CURSOR_SECRET: 'new-secret', CURSOR_SECRET_PREVIOUS: 'old-secret' })));
    expect(decodeCursor(signer, old, accept, invalid)).toEqual({ o: 3 });
    expect(decodeCursor(signer, encodeCursor(signer, { o: 4 }), accept, invalid)).toEqual({ o: 4 });
    signer.setKeys(cursorKeys(loadConfig({ ...env, CURSOR_SECRET: 'new-secret' })));
    expect(() => decodeCursor(signer, old, accept, invalid)).toThrow(/not ours/);
    // The same place issued again after the rotation is signed with the new key, not reissued as remembered.
    expect(encodeCursor(signer, { o: 3 })).not.toBe(old);
    expect(decodeCursor(signer, encodeCursor(signer, { o: 3 }), accept, invalid)).toEqual({ o: 3 });
  });

  it('rotate: moving from the key production derived from WEBHOOK_SECRET to CURSOR_SECRET keeps the old cursors valid', () => {
    const production = { ...env, NODE_ENV: 'production', WEBHOOK_SECRET: 'w' };
    const before = new CursorSigner(cursorKeys(loadConfig(production)));
    const old = encodeCursor(before, { o: 7 });
    const after = new CursorSigner(cursorKeys(loadConfig({ ...production, CURSOR_SECRET: 'c' })));
    expect(decodeCursor(after, old, accept, invalid)).toEqual({ o: 7 });
    // New cursors are signed with CURSOR_SECRET alone: a replica that knows only that key reads them.
    const fresh = encodeCursor(after, { o: 8 });
    expect(fresh).not.toBe(encodeCursor(before, { o: 8 }));
    expect(decodeCursor(new CursorSigner(cursorKeys(loadConfig({ ...env, NODE_ENV: 'production', CURSOR_SECRET: 'c' }))), fresh, accept, invalid)).toEqual({ o: 8 });
    // Another webhook secret's cursors are not accepted.
    const other = encodeCursor(new CursorSigner(cursorKeys(loadConfig({ ...production, WEBHOOK_SECRET: 'x' }))), { o: 7 });
    expect(() => decodeCursor(after, other, accept, invalid)).toThrow(/not ours/);
  });

  it('refuses production with no secret and no Redis unless SINGLE_REPLICA=true says one process is the whole deployment', () => {
    const production = { ...env, NODE_ENV: 'production' };
    expect(cursorKeyRefusal(loadConfig(production))).toMatch(/CURSOR_SECRET: required in production without REDIS_URL or WEBHOOK_SECRET/);
    expect(cursorKeyRefusal(loadConfig({ ...production, SINGLE_REPLICA: 'true' }))).toBeNull();
    expect(cursorKeyRefusal(loadConfig({ ...production, REDIS_URL: 'redis://r:6379' }))).toBeNull();
    expect(cursorKeys(loadConfig({ ...production, REDIS_URL: 'redis://r:6379' })).source).toBe('redis');
    expect(cursorKeyRefusal(loadConfig({ ...production, WEBHOOK_SECRET: 'w' }))).toBeNull();
    expect(cursorKeyRefusal(loadConfig({ ...production, CURSOR_SECRET: 'c' }))).toBeNull();
    expect(cursorKeyRefusal(loadConfig(env))).toBeNull();
    expect(() => loadConfig({ ...production, SINGLE_REPLICA: 'yes' })).toThrow(/SINGLE_REPLICA/);
  });

  it('replicas agree without CURSOR_SECRET when they share WEBHOOK_SECRET; production without either signs per process', () => {
    const a = cursorKeys(loadConfig({ ...env, NODE_ENV: 'production', WEBHOOK_SECRET: 'w' }));
    const b = cursorKeys(loadConfig({ ...env, NODE_ENV: 'production', WEBHOOK_SECRET: 'w' }));
    expect(a.current.equals(b.current)).toBe(true);
    expect(a.source).toBe('WEBHOOK_SECRET');
    const alone = cursorKeys(loadConfig({ ...env, NODE_ENV: 'production' }));
    expect(alone.source).toBe('per-process');
    expect(cursorKeys(loadConfig({ ...env, NODE_ENV: 'production' })).current.equals(alone.current)).toBe(false);
    expect(cursorKeys(loadConfig({})).source).toBe('development');
  });
});
