import type { Asset, Channel, Market, Notification, Position, Provider, SubscribedApp } from '../models/index.js';
import { builder } from './builder.js';

/**
 * References to the types several domains point at, declared once so each domain folder can use them
 * while the owning folder implements them (`builder.node(AssetRef, ...)`, `MarketRef.implement(...)`).
 */

/** Where an asset's metadata came from on this request. */
export type MetadataSource = 'PRIMARY' | 'CACHE' | 'STALE' | 'FALLBACK';

/** An asset as served: the model plus where its metadata came from. */
export interface AssetView extends Asset {
  metadataSource: MetadataSource;
  /** `price` is null because no assets service could be reached (not because the asset has none): the field reports UPSTREAM_UNAVAILABLE. */
  priceUnavailable?: boolean;
  /** A search result: only the summary fields are known; the others are loaded when asked for. */
  summaryOnly?: boolean;
}

export interface WalletModel {
  address: string;
}

export interface SubscriberModel {
  walletAddress: string;
}

export const AssetRef = builder.objectRef<AssetView>('Asset');
export const ProviderRef = builder.objectRef<Provider>('Provider');
export const MarketRef = builder.interfaceRef<Market>('Market');
export const PositionRef = builder.interfaceRef<Position>('Position');
export const WalletRef = builder.objectRef<WalletModel>('Wallet');
export const SubscriberRef = builder.objectRef<SubscriberModel>('Subscriber');
export const SubscribedAppRef = builder.objectRef<SubscribedApp>('SubscribedApp');
export const NotificationRef = builder.objectRef<Notification>('Notification');
export const ChannelRef = builder.objectRef<Channel>('Channel');
