import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { listingCalls, rawListing } from './helpers.js';

describe('markets', () => {
  const gw = useTestGateway({ resetControls: true });

  it('finds markets by id and by global id, and providers by global id; unknown ids give null', async () => {
    const lending = rawListing(gw, { types: ['lending'] })[0]!;
    const settled = rawListing(gw, { types: ['prediction'], statuses: ['settled'] })[0]!;
    const res: any = await gw.execute(
      /* GraphQL */ `
        query ($a: String!, $b: String!) {
          a: market(id: $a) { id marketId __typename provider { id providerId } }
          b: market(id: $b) { id marketId status ... on PredictionMarket { title } }
          unknown: market(id: "kamino.lend.doesNotExist") { id }
        }
      `,
      { a: lending.id, b: settled.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.a).toMatchObject({ marketId: lending.id, __typename: 'LendingMarket' });
    expect(res.data.b).toMatchObject({ marketId: settled.id, status: 'SETTLED', title: (settled as any).title });
    expect(res.data.unknown).toBeNull();

    const nodes: any = await gw.execute(
      /* GraphQL */ `
        query ($market: ID!, $provider: ID!, $unknownProvider: ID!, $wrongKind: ID!) {
          market: node(id: $market) { id ... on LendingMarket { marketId depositApy } }
          provider: node(id: $provider) { id ... on Provider { providerId name icon } }
          unknownProvider: node(id: $unknownProvider) { id }
          wrongKind: node(id: $wrongKind) { id }
          both: nodes(ids: [$market, $provider]) { id }
        }
      `,
      {
        market: res.data.a.id,
        provider: res.data.a.provider.id,
        unknownProvider: Buffer.from('Provider:no-such-provider').toString('base64'),
        wrongKind: Buffer.from(`YieldMarket:${lending.id}`).toString('base64'),
      },
    );
    expect(nodes.errors).toBeUndefined();
    expect(nodes.data.market).toEqual({ id: res.data.a.id, marketId: lending.id, depositApy: (lending as any).depositApy });
    expect(nodes.data.provider).toMatchObject({ id: res.data.a.provider.id, providerId: lending.provider.id, name: lending.provider.name });
    expect(nodes.data.unknownProvider).toBeNull();
    expect(nodes.data.wrongKind).toBeNull();
    expect(nodes.data.both.map((n: any) => n.id)).toEqual([res.data.a.id, res.data.a.provider.id]);
    expect(listingCalls(gw)).toBe(0);
  });

  it('keeps serving the listing and lookups from the index while the markets service fails', async () => {
    const listing = rawListing(gw).slice(0, 3).map((m) => m.id);
    gw.sim.controls.setFault({ service: 'markets' }, { status: 503 });
    await expect(gw.services.marketIndex.refresh()).rejects.toMatchObject({ service: 'markets' });
    const res: any = await gw.execute(`query ($id: String!) { markets(first: 3) { edges { node { marketId } } } market(id: $id) { marketId } }`, {
      id: listing[0],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(listing);
    expect(res.data.market).toEqual({ marketId: listing[0] });
    expect(listingCalls(gw)).toBe(1); // the failed refresh only
  });
});
