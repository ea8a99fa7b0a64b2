import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DATA_KINDS, documentPolicy, policyFaults } from '../../src/response-cache/policy.js';
import { schema } from '../../src/schema/index.js';
import { operation } from '../helpers/gateway.js';

const ttls = loadConfig({}).responseCacheTtlMs;

describe('the cache scope of every type', () => {
  it('walks the schema: every reachable type has a kind, and none that reaches private data is public', () => {
    expect(policyFaults(schema)).toEqual([]);
  });

  it('fails when a type that can reach private data is cached as public', () => {
    // Node can be a Subscriber or a Channel.
    expect(policyFaults(schema, { ...DATA_KINDS, Node: 'markets' })).toEqual(['Node: reaches private data but is cached as markets (public)']);
    // A type the issue names as private, itself marked public.
    expect(policyFaults(schema, { ...DATA_KINDS, Subscriber: 'metadata' }, ['Subscriber', 'Channel'])).toContain(
      'Subscriber: reaches private data but is cached as metadata (public)',
    );
  });

  it('fails when a public type leads to private data through a field, or a type has no kind', () => {
    const shop = buildSchema(`
      type Query { shop: Shop, item: Item }
      type Shop { name: String, owner: Subscriber }
      type Subscriber { id: ID }
      type Item { id: ID }
    `);
    expect(policyFaults(shop, { Shop: 'markets', Subscriber: 'private' }, ['Subscriber'])).toEqual([
      'Item: no data kind (add it to DATA_KINDS)',
      'Shop: reaches private data but is cached as markets (public)',
    ]);
    expect(policyFaults(shop, { Shop: 'private', Subscriber: 'private', Item: 'metadata' }, ['Subscriber'])).toEqual([]);
  });
});

describe('the cache policy of a document', () => {
  const policyOf = (document: string) => documentPolicy(schema, parse(document), ttls);

  it('is public for market, provider and asset data, with the shortest TTL of what it selects', () => {
    expect(policyOf('{ markets(first: 5) { edges { node { id provider { name } } } } }')).toEqual({ scope: 'PUBLIC', ttlMs: ttls.markets });
    expect(policyOf(operation('MarketsPage'))).toEqual({ scope: 'PUBLIC', ttlMs: Math.min(ttls.markets, ttls.prices) });
    expect(policyOf('{ asset(id: "bitcoin:native") { name } }')).toEqual({ scope: 'PUBLIC', ttlMs: ttls.metadata });
    expect(policyOf(operation('SearchAssets'))?.scope).toBe('PUBLIC');
    expect(policyOf(operation('WalletPositions'))?.scope).toBe('PUBLIC');
  });

  it('is private as soon as the caller’s own data is selected, through a fragment or a node', () => {
    expect(policyOf(operation('MobileHome'))).toEqual({ scope: 'PRIVATE', ttlMs: Math.min(ttls.private, ttls.prices) });
    expect(policyOf(operation('ViewerInbox'))?.scope).toBe('PRIVATE');
    expect(policyOf('{ node(id: "x") { id } }')?.scope).toBe('PRIVATE');
    expect(policyOf('query { ...f } fragment f on Query { viewer { id } }')?.scope).toBe('PRIVATE');
  });

  it('is none for mutations, subscriptions and introspection', () => {
    expect(policyOf('mutation { markNotificationsRead { unreadCount } }')).toBeNull();
    expect(policyOf('subscription { events { eventId } }')).toBeNull();
    expect(policyOf('{ __schema { types { name } } }')).toBeNull();
    // Freshness describes the answer it is in: a cached copy would repeat an ORIGIN no longer true.
    expect(policyOf('{ asset(id: "bitcoin:native") { name price { freshness { source } } } }')).toBeNull();
    expect(policyOf('{ markets(first: 5) { edges { node { ... on LendingMarket { freshness { asOf } } } } } }')).toBeNull();
  });
});
