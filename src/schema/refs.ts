import type { AssetView, Channel, Market, Notification, Position, Provider, SubscribedApp, SubscriberModel, WalletModel } from '../models/index.js';
import { builder } from './builder.js';

/**
 * References to the types several domains point at, declared once so each domain folder can use them
 * while the owning folder implements them (`builder.node(AssetRef, ...)`, `MarketRef.implement(...)`).
 */


export const AssetRef = builder.objectRef<AssetView>('Asset');
export const ProviderRef = builder.objectRef<Provider>('Provider');
export const MarketRef = builder.interfaceRef<Market>('Market');
export const PositionRef = builder.interfaceRef<Position>('Position');
export const WalletRef = builder.objectRef<WalletModel>('Wallet');
export const SubscriberRef = builder.objectRef<SubscriberModel>('Subscriber');
export const SubscribedAppRef = builder.objectRef<SubscribedApp>('SubscribedApp');
export const NotificationRef = builder.objectRef<Notification>('Notification');
export const ChannelRef = builder.objectRef<Channel>('Channel');
