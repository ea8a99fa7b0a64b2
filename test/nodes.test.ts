import { encodeGlobalID } from '@pothos/plugin-relay';
import { isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestGateway } from './helpers/gateway.js';

/** Every entity is a Node: its global id, read from any query, finds it again through node/nodes. */
describe('node(id:) and nodes(ids:)', () => {
  const gw = useTestGateway();
  let ids: Record<string, string>;
  let typenames: Record<string, string>;

  beforeAll(async () => {
    const result = await gw.execute(
      `query Ids($wallet: String!) {
        viewer {
          id
          channels { id }
          apps { id }
          inbox(first: 1) { edges { node { id } } }
        }
        wallet(address: $wallet) { id positions(first: 1) { edges { node { __typename id market { __typename id provider { id } } } } } }
        asset(id: "bitcoin:native") { id }
      }`,
      { wallet: gw.sim.world.demoWallets[0] },
      gw.viewerHeaders,
    );
    expect(result.errors).toBeUndefined();
    const { viewer, wallet, asset } = result.data!;
    const position = wallet.positions.edges[0].node;
    // Position and Market are interfaces: their nodes come back as the concrete kind.
    typenames = { Position: position.__typename, Market: position.market.__typename };
    ids = {
      Subscriber: viewer.id,
      Channel: viewer.channels[0].id,
      SubscribedApp: viewer.apps[0].id,
      Notification: viewer.inbox.edges[0].node.id,
      Wallet: wallet.id,
      Position: position.id,
      Market: position.market.id,
      Provider: position.market.provider.id,
      Asset: asset.id,
    };
  });

  it('resolves each entity type by its global id', async () => {
    for (const [type, id] of Object.entries(ids)) {
      const result = await gw.execute('query($id: ID!) { node(id: $id) { __typename id } }', { id }, gw.viewerHeaders);
      expect(result.errors, type).toBeUndefined();
      expect(result.data!.node?.id, type).toBe(id);
      expect(result.data!.node.__typename, type).toBe(typenames[type] ?? type);
    }
  });

  it('resolves a mixed list in one request, in order', async () => {
    const list = Object.values(ids);
    const result = await gw.execute('query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }', { ids: list }, gw.viewerHeaders);
    expect(result.errors).toBeUndefined();
    expect(result.data!.nodes.map((n: { id: string }) => n.id)).toEqual(list);
  });

  it('gives null for an unknown id, and for an id naming no Node object type', async () => {
    const encode = (s: string) => Buffer.from(s).toString('base64');
    const forged = [
      encode('Asset:solana:1111111111111111111111111111111111'),
      encode('LendingMarket:nowhere.lend.nothing'),
      encode('Market:kamino.lend.x'), // an interface, not an object type
      encode('PageInfo:x'), // an object type that is not a Node
      encode('Nope:x'),
    ];
    const result = await gw.execute('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [...forged, ids['Asset']] });
    expect(result.errors).toBeUndefined();
    expect(result.data!.nodes).toEqual([null, null, null, null, null, { id: ids['Asset'] }]);
    const single = await gw.execute('query($id: ID!) { node(id: $id) { id } }', { id: forged[2] });
    expect(single.errors).toBeUndefined();
    expect(single.data!.node).toBeNull();
  });

  it('does not show another caller their subscriber or channels', async () => {
    const other = [...gw.sim.alerts.subscribers.values()].find((s) => s.walletAddress !== gw.sim.alerts.demo.walletAddress)!;
    const headers = { authorization: `Bearer ${other.token}`, 'x-service-client-key': gw.sim.alerts.demo.clientKey };
    const result = await gw.execute('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids: [ids['Subscriber'], ids['Channel']] }, headers);
    expect(result.data!.nodes).toEqual([null, null]);
  });
});

describe('global ids', () => {
  let schema: GraphQLSchema;
  beforeAll(async () => {
    ({ schema } = await import('../src/schema/index.js'));
  });
  /** What the `id` field of `typename` resolves `record` to, called as the executor calls it. */
  const idOf = (typename: string, record: object) => {
    const type = schema.getType(typename);
    return isObjectType(type) ? type.getFields()['id']!.resolve!(record, {}, {}, {} as never) : null;
  };

  it("every Node type's id resolves without a promise, encoded as the relay plugin encodes it", () => {
    const nodes = Object.values(schema.getTypeMap()).filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'));
    expect(nodes.length).toBeGreaterThan(10);
    for (const type of nodes) {
      // An AsyncFunction would hand the executor a promise for every id of a response.
      expect(isObjectType(type) && type.getFields()['id']!.resolve!.constructor.name, type.name).toBe('Function');
    }
    expect(idOf('Provider', { providerId: 'kamino', name: 'Kamino' })).toBe(encodeGlobalID('Provider', 'kamino'));
  });

  it("is the relay plugin's encoding for records held or made per request, any characters, any length", () => {
    for (const raw of ['wY1yBL1s5vsiQmr6CmNHnu4u82KxHUQZyb9YodM3oDB', 'é€😀 \ud800', 'x'.repeat(5000), '']) {
      expect(idOf('Wallet', { address: raw })).toBe(encodeGlobalID('Wallet', raw));
      expect(idOf('Provider', { providerId: raw, name: 'n' })).toBe(encodeGlobalID('Provider', raw));
    }
    // A held record's id is encoded once: the record's own later change is not seen (records are never changed).
    const held = { providerId: 'kamino', name: 'Kamino' };
    expect(idOf('Provider', held)).toBe(encodeGlobalID('Provider', 'kamino'));
    held.providerId = 'marginfi';
    expect(idOf('Provider', held)).toBe(encodeGlobalID('Provider', 'kamino'));
    const wallet = { address: 'a' };
    idOf('Wallet', wallet);
    wallet.address = 'b';
    expect(idOf('Wallet', wallet)).toBe(encodeGlobalID('Wallet', 'b'));
  });

  it('positions and markets resolve their concrete type from their kind', () => {
    const resolved = (name: string, value: object) => {
      const type = schema.getType(name);
      return isInterfaceType(type) ? type.resolveType!(value, {}, {} as never, type) : null;
    };
    expect(resolved('Market', { type: 'LENDING', marketId: 'm' })).toBe('LendingMarket');
    expect(resolved('Market', { type: 'PREDICTION', marketId: 'm' })).toBe('PredictionMarket');
    expect(resolved('Position', { type: 'YIELD', positionId: 'p' })).toBe('YieldPosition');
  });
});
