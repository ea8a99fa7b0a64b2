/**
 * Wallets' positions shared across requests and callers for a short time (`POSITIONS_SHARE_TTL_MS`).
 *
 * Positions are public, on-chain data: the same wallet's positions are fetched, parsed and mapped once
 * per time-to-live however many requests and users look at it, and a read already in flight is joined
 * rather than repeated. A client's `Cache-Control: max-age=N` / `no-cache` bounds the age of the copy it
 * is served, as for the market index and the asset cache. A TTL of 0 turns sharing off (one read per
 * request, as before).
 */
import { Gauge, type Registry } from 'prom-client';
import type { Config } from '../config.js';
import { holding } from '../held.js';
import { marketTokens, type Market, type Position, type TokenRef } from '../models/index.js';
import { InFlight } from '../inflight.js';
import { type CallScope, deadlineExceeded, detached } from '../operation/index.js';
import type { Upstream } from '../upstream/index.js';
import { accepted } from './freshness.js';
import { sharePositionParts } from './shared-parts.js';

export interface PositionsStoreOptions {
  /** How long a wallet's positions are shared; default `config.positionsShareTtlMs`. */
  ttlMs?: number;
  /** Most wallets held at once (the oldest is dropped first). */
  maxWallets?: number;
  /** Most bytes of positions held at once, estimated per position (the oldest copies are dropped first). */
  maxBytes?: number;
  now?: () => number;
  /** Every read's positions, once (the asset cache remembers their token records). */
  onPositions?: (positions: readonly Position[]) => void;
  /** The market index's record of a market, if it holds one: a held copy's embedded markets share its equal parts. */
  indexed?: (marketId: string) => Market | undefined;
}

/** One wallet's positions as one read answered them, and when it answered (on the store's clock): their embedded markets are as of then. */
export interface WalletPositions {
  readonly positions: Position[];
  readonly fetchedAt: number;
}

export interface PositionsStore {
  /** Every position of each wallet, in order; fresh copies and reads in flight are shared, the rest fetched together in one call. */
  load(wallets: readonly string[], scope?: CallScope): Promise<WalletPositions[]>;
  /** The store's clock (what `fetchedAt` is read on). */
  now(): number;
}

export const DEFAULT_POSITIONS_MAX_WALLETS = 10_000;
export const DEFAULT_POSITIONS_MAX_BYTES = 32 * 1024 * 1024;
/**
 * The heap one position holds as mapped, its embedded market included: 2,686 bytes measured over the
 * simulator's largest wallet (22 positions, 1.9 KB of JSON each), mapped 500 times.
 */
export const POSITION_BYTES = 2_700;

/** What the positions store is built from. */
export interface PositionsStoreDeps {
  upstream: Pick<Upstream, 'markets'>;
  config: Pick<Config, 'positionsShareTtlMs'>;
  registry: Registry;
}

export function createPositionsStore(deps: PositionsStoreDeps, options: PositionsStoreOptions = {}): PositionsStore {
  const { upstream } = deps;
  const ttlMs = options.ttlMs ?? deps.config.positionsShareTtlMs;
  const maxWallets = options.maxWallets ?? DEFAULT_POSITIONS_MAX_WALLETS;
  const now = options.now ?? Date.now;
  const copies = new Map<string, WalletPositions>();
  // Each wallet's read in flight, with when it started (on the store's clock): one read may carry several wallets.
  const pending = new InFlight<string, WalletPositions, number>();
  const maxBytes = options.maxBytes ?? DEFAULT_POSITIONS_MAX_BYTES;
  let bytes = 0;
  holding(copies, { name: 'shared_positions', bytes: () => bytes, maxBytes });
  const drop = (wallet: string) => {
    const copy = copies.get(wallet);
    if (copy && copies.delete(wallet)) bytes -= copy.positions.length * POSITION_BYTES;
  };
  /** Holds a wallet's copy as the newest, dropping the oldest past either bound. */
  const hold = (wallet: string, copy: WalletPositions) => {
    drop(wallet);
    copies.set(wallet, copy);
    bytes += copy.positions.length * POSITION_BYTES;
    while (copies.size > maxWallets || (bytes > maxBytes && copies.size > 1)) drop(copies.keys().next().value!);
  };
  new Gauge({
    name: 'gateway_positions_wallets',
    help: "Wallets whose positions the gateway holds to share (each dropped once past POSITIONS_SHARE_TTL_MS).",
    registers: [deps.registry],
    collect() {
      this.set(copies.size);
    },
  });

  const acceptable = (fetchedAt: number, scope: CallScope | undefined) =>
    now() - fetchedAt <= ttlMs && accepted(scope?.freshness, fetchedAt, now);

  /**
   * Drops the copies past their time to live: no request may be served them, and a wallet's positions
   * (markets embedded) are tens of KB, so holding each wallet ever asked for until `maxWallets` pushes it
   * out was most of the heap with many users. The map is in the order the copies were stored, oldest
   * first, so the sweep stops at the first one still fresh.
   */
  function dropExpired(): void {
    const oldest = now() - ttlMs;
    for (const [wallet, copy] of copies) {
      if (copy.fetchedAt >= oldest) return;
      drop(wallet);
    }
  }

  /** One read of these wallets' positions: each wallet's, in the order asked. */
  async function read(wallets: readonly string[], scope: CallScope | undefined): Promise<WalletPositions[]> {
    const positions = await upstream.markets.getPositions({ walletAddresses: wallets, scope });
    const fetchedAt = now();
    // A copy held for sharing outlives scavenges: it keeps only what its index record does not already hold.
    if (ttlMs > 0) for (const position of positions) sharePositionParts(position, wallets.length === 1 ? wallets[0]! : position.ownerAddress, options.indexed?.(position.marketId));
    options.onPositions?.(positions);
    // One wallet (a screen's read): its positions in one pass, without a map of owners.
    if (wallets.length === 1) return [{ positions: positions.filter((p) => p.ownerAddress === wallets[0]), fetchedAt }];
    const byOwner = new Map<string, Position[]>(wallets.map((wallet) => [wallet, []]));
    for (const position of positions) byOwner.get(position.ownerAddress)?.push(position);
    return wallets.map((wallet) => ({ positions: byOwner.get(wallet)!, fetchedAt }));
  }

  function fetch(wallets: string[], scope: CallScope | undefined): void {
    const startedAt = now();
    // Other requests join this read: it runs to its end whatever this request's client or deadline does.
    const all = read(wallets, detached(scope));
    for (let i = 0; i < wallets.length; i++) {
      const wallet = wallets[i]!;
      const flight = pending.start(wallet, () => all.then((reads) => reads[i]!), { meta: startedAt });
      flight.result.then(
        (copy) => {
          hold(wallet, copy);
          dropExpired();
        },
        () => {},
      );
    }
  }

  /** Fresh copies and reads in flight shared; the rest read together, in one call. */
  async function shared(wallets: readonly string[], scope: CallScope | undefined): Promise<WalletPositions[]> {
    const missing: string[] = [];
    for (const wallet of wallets) {
      const copy = copies.get(wallet);
      if (copy && acceptable(copy.fetchedAt, scope)) continue;
      const inFlight = pending.get(wallet);
      // A read started before the client's bound could answer with a copy older than it allows.
      if (inFlight && (!scope?.freshness || scope.freshness.accepts(inFlight.meta, now))) continue;
      missing.push(wallet);
    }
    if (missing.length > 0) fetch(missing, scope);
    // Each wallet's wait ends at this operation's deadline; the read goes on for the others.
    const waiter = { deadlineAt: scope?.deadline?.at, expired: () => deadlineExceeded('markets') };
    const answers = wallets.map((wallet) => {
      const copy = copies.get(wallet);
      if (copy && acceptable(copy.fetchedAt, scope)) return Promise.resolve(copy);
      return pending.get(wallet)!.join(waiter).answer;
    });
    return Promise.all(answers);
  }

  return {
    load(wallets, scope) {
      // Not shared: the request's own read, ended with it.
      return ttlMs <= 0 ? read(wallets, scope) : shared(wallets, scope);
    },
    now,
  };
}

/**
 * The token records carried by positions (their markets', reward and outcome tokens). A token carried
 * by several positions is listed as often: remembering it again costs the records one lookup, less
 * than finding the duplicates here.
 */
export function positionTokens(positions: readonly Position[]): TokenRef[] {
  const tokens: TokenRef[] = [];
  for (const position of positions) {
    if (position.market) for (const token of marketTokens(position.market)) tokens.push(token);
    if ((position.type === 'REWARD' || position.type === 'PREDICTION') && position.token) tokens.push(position.token);
  }
  return tokens;
}
