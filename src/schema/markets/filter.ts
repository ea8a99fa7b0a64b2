import { badUserInput } from '../../errors.js';
import type { MarketStatus, MarketType } from '../../models/index.js';
import { builder } from '../builder.js';
import { cursorFingerprint } from '../common/cursor.js';
import { isSolanaAddress } from '../common/inputs.js';
import { MarketStatusEnum, MarketTypeEnum } from '../enums.js';

/** Most values one filter list takes. */
export const MAX_FILTER_VALUES = 50;
const PROVIDER_ID = /^[a-z0-9-]{1,64}$/;

export interface MarketFilterInput {
  types?: readonly MarketType[] | null;
  providers?: readonly string[] | null;
  assets?: readonly string[] | null;
  predictionStatus?: readonly MarketStatus[] | null;
}

/** A checked filter, sorted and without duplicates, exactly as it goes to the upstream. */
export interface ListingFilter {
  types?: MarketType[];
  providers?: string[];
  assets?: string[];
  predictionStatus?: MarketStatus[];
}

export const MarketFilterInputRef = builder.inputType('MarketFilter', {
  description:
    'Which markets to list. Values within a field combine with OR, fields with AND; an omitted or empty field does not filter.',
  fields: (t) => ({
    types: t.field({ type: [MarketTypeEnum], description: 'Market kinds.' }),
    providers: t.stringList({ description: `Provider ids such as \`kamino\` (lowercase letters, digits, dashes; at most ${MAX_FILTER_VALUES}).` }),
    assets: t.stringList({
      description: `Solana token addresses (or \`solana:<address>\` asset ids): markets whose token, tokenA or tokenB is one of them (at most ${MAX_FILTER_VALUES}).`,
    }),
    predictionStatus: t.field({
      type: [MarketStatusEnum],
      description: 'Statuses of the prediction markets listed; default OPEN, as the markets service does. Other kinds are not affected.',
    }),
  }),
});

function checkLength(field: string, values: readonly unknown[]): void {
  if (values.length > MAX_FILTER_VALUES) {
    throw badUserInput(`filter.${field} takes at most ${MAX_FILTER_VALUES} values; got ${values.length}.`, `filter.${field}`);
  }
}

const unique = <T extends string>(values: readonly T[]): T[] => [...new Set(values)].sort();

/** Checks every value before it can reach the upstream URL; BAD_USER_INPUT says what is allowed. */
export function parseMarketFilter(input: MarketFilterInput | null | undefined): ListingFilter {
  const filter: ListingFilter = {};
  if (!input) return filter;
  const { types, providers, assets, predictionStatus } = input;

  if (types?.length) {
    checkLength('types', types);
    filter.types = unique(types);
  }
  if (providers?.length) {
    checkLength('providers', providers);
    for (const provider of providers) {
      if (!PROVIDER_ID.test(provider)) {
        throw badUserInput(
          `filter.providers: ${JSON.stringify(provider.slice(0, 80))} is not a provider id (1–64 lowercase letters, digits or dashes, e.g. "kamino").`,
          'filter.providers',
        );
      }
    }
    filter.providers = unique(providers);
  }
  if (assets?.length) {
    checkLength('assets', assets);
    const addresses = assets.map((asset) => {
      const address = asset.startsWith('solana:') ? asset.slice('solana:'.length) : asset;
      if (!isSolanaAddress(address)) {
        throw badUserInput(
          `filter.assets: ${JSON.stringify(asset.slice(0, 80))} is not a Solana token address (base58, 32–44 characters, optionally prefixed "solana:").`,
          'filter.assets',
        );
      }
      return address;
    });
    filter.assets = unique(addresses);
  }
  if (predictionStatus?.length) {
    checkLength('predictionStatus', predictionStatus);
    filter.predictionStatus = unique(predictionStatus);
  }
  return filter;
}

/** A short digest of a checked filter: cursors carry it so a cursor is only used with its own filter. */
export function filterFingerprint(filter: ListingFilter): string {
  return cursorFingerprint([filter.types ?? null, filter.providers ?? null, filter.assets ?? null, filter.predictionStatus ?? null]);
}
