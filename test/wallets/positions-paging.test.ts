import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { WalletPositions, TYPES, STATUSES, TYPENAME, positionCalls, address, raw, useRichWalletPositions } from '../helpers/wallet-positions.js';

describe('Wallet.positions', () => {
  const gw = useTestGateway();
  useRichWalletPositions(gw);

  it('pages through every position to the end, in the upstream order, without duplicates, on one upstream call per page', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const before = positionCalls(gw);
      const res: any = await gw.execute(WalletPositions, { address, first: 5, after });
      expect(res.errors).toBeUndefined();
      const connection = res.data.wallet.positions;
      expect(connection.totalCount).toBe(raw.length);
      expect(connection.edges.length).toBeLessThanOrEqual(5);
      seen.push(...connection.edges.map((e: any) => e.node.positionId));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
      expect(positionCalls(gw) - before).toBe(1);
      pages += 1;
    } while (after && pages < 50);
    expect(pages).toBe(Math.ceil(raw.length / 5));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(raw.map((p) => p.id));
  });

  /** The positions `filter` selects: exactly `expected`, in the upstream order, counted; returns the edges. */
  async function expectFiltered(filter: { type?: string; status?: string }, expected: typeof raw): Promise<any[]> {
    expect(expected.length).toBeGreaterThan(0);
    const res: any = await gw.execute(WalletPositions, { address, ...filter, first: 100 });
    expect(res.errors).toBeUndefined();
    const connection = res.data.wallet.positions;
    expect(connection.totalCount).toBe(expected.length);
    expect(connection.edges.map((e: any) => e.node.positionId)).toEqual(expected.map((p) => p.id));
    return connection.edges;
  }

  it.each(TYPES)('filters by type %s', async (type) => {
    const edges = await expectFiltered({ type }, raw.filter((p) => p.type === type.toLowerCase()));
    for (const { node } of edges) {
      expect(node.type).toBe(type);
      expect(node.__typename).toBe(TYPENAME[type]);
    }
  });

  it.each(STATUSES)('filters by market status %s', async (status) => {
    const edges = await expectFiltered({ status }, raw.filter((p) => p.market?.status === status.toLowerCase()));
    for (const { node } of edges) expect(node.market.status).toBe(status);
  });

  it('combines type and status', async () => {
    const expected = raw.filter((p) => p.type === 'prediction' && p.market?.status === 'settled');
    expect(expected.length).toBeGreaterThan(0);
    const res: any = await gw.execute(WalletPositions, { address, type: 'PREDICTION', status: 'SETTLED' });
    expect(res.data.wallet.positions.edges.map((e: any) => e.node.positionId)).toEqual(expected.map((p) => p.id));
    expect(positionCalls(gw)).toBe(1);
  });
});
