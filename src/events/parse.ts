import { assetIdForSolana, isValidAssetId } from '../models/index.js';
import { isObject } from '../upstream/read.js';
import { PRICE_CHANGE_WINDOWS, type Event, type PriceChangePoint, type PriceDirection } from './model.js';

/** Longest event id the gateway keeps (ids go into dedupe keys and logs). */
export const MAX_EVENT_ID_LENGTH = 256;
/** Longest piece of an event's own text (its id, its kind) repeated in a reason: what is logged stays small. */
export const MAX_QUOTED_LENGTH = 64;

export interface IgnoredEvent {
  id: string | null;
  /** Why: an unknown kind (newer upstream) or a field that does not match the contract. */
  reason: string;
}

export interface ParsedBatch {
  events: Event[];
  ignored: IgnoredEvent[];
}

/**
 * Reads a verified webhook body (`{"events": Event[]}`, docs/upstream.md section 4) into the gateway's model.
 * A body of the wrong shape is an error; an event of an unknown kind, or one that breaks the contract,
 * is ignored on its own so the rest of the batch is still delivered.
 */
export function parseWebhookBody(body: unknown): ParsedBatch | { error: string } {
  if (!isObject(body) || !Array.isArray(body['events'])) return { error: 'body must be {"events": Event[]}' };
  const batch: ParsedBatch = { events: [], ignored: [] };
  for (const raw of body['events'] as unknown[]) {
    const id = isObject(raw) && typeof raw['id'] === 'string' ? quoted(raw['id']) : null;
    try {
      const event = parseEvent(raw);
      if (event) batch.events.push(event);
      else batch.ignored.push({ id, reason: `unknown event kind ${describe(isObject(raw) ? raw['event'] : null)}` });
    } catch (error) {
      // Whatever breaks reading one event (a contract error, or a value no code can walk: nested
      // thousands deep) costs that event alone; the rest of its batch is still delivered.
      batch.ignored.push({ id, reason: error instanceof ContractError ? error.message : 'event could not be read' });
    }
  }
  return batch;
}

/** A short, safe description of a value an event carries: a string quoted and cut, anything else by its type. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(quoted(value));
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

function quoted(text: string): string {
  return text.length > MAX_QUOTED_LENGTH ? `${text.slice(0, MAX_QUOTED_LENGTH)}…` : text;
}

class ContractError extends Error {}

/** One event; `null` for a kind the gateway does not know. Throws a ContractError naming the bad field. */
function parseEvent(raw: unknown): Event | null {
  if (!isObject(raw)) throw new ContractError('event is not an object');
  const eventId = str(raw, 'id');
  if (eventId.length > MAX_EVENT_ID_LENGTH) throw new ContractError(`id is longer than ${MAX_EVENT_ID_LENGTH} characters`);
  const timestamp = time(raw, 'timestamp');

  switch (raw['event']) {
    case 'token_price_change': {
      const token = record(raw, 'token');
      const trigger = record(raw, 'trigger');
      const change = record(raw, 'change');
      const window = record(trigger, 'window')['duration'];
      if (typeof window !== 'string' || !Object.hasOwn(PRICE_CHANGE_WINDOWS, window)) {
        throw new ContractError(`trigger.window.duration must be one of ${Object.keys(PRICE_CHANGE_WINDOWS).join(', ')}`);
      }
      return {
        kind: 'TOKEN_PRICE_CHANGE',
        eventId,
        timestamp,
        ...tokenOf(token),
        window: PRICE_CHANGE_WINDOWS[window as keyof typeof PRICE_CHANGE_WINDOWS],
        threshold: num(trigger, 'threshold'),
        direction: direction(change),
        from: point(record(change, 'from')),
        to: point(record(change, 'to')),
        absolute: num(change, 'absolute'),
        percentage: num(change, 'percentage'),
      };
    }
    case 'trending_token': {
      const metrics = record(raw, 'metrics');
      const change = metrics['priceChange24h'];
      return {
        kind: 'TRENDING_TOKEN',
        eventId,
        timestamp,
        ...tokenOf(record(raw, 'token')),
        metrics: {
          launchpad: str(metrics, 'launchpad'),
          marketCapUsd: num(metrics, 'marketCap'),
          liquidityUsd: num(metrics, 'liquidity'),
          holders: Math.round(num(metrics, 'holders')),
          priceUsd: num(metrics, 'price'),
          priceChange24h: typeof change === 'number' && Number.isFinite(change) ? change : null,
        },
      };
    }
    case 'token_last_trade_price_change':
      return {
        kind: 'TOKEN_LAST_TRADE_PRICE_CHANGE',
        eventId,
        timestamp,
        ...tokenOf(record(raw, 'token')),
        walletAddress: str(raw, 'walletAddress'),
        lastTradePrice: num(raw, 'lastTradePrice'),
        currentPrice: num(raw, 'currentPrice'),
        percentage: num(raw, 'percentage'),
        direction: direction(raw),
      };
    default:
      return null;
  }
}

function tokenOf(token: Record<string, unknown>): { assetId: string; symbol: string } {
  const symbol = str(token, 'symbol');
  const address = str(token, 'address');
  const named = token['assetId'];
  const assetId: string = typeof named === 'string' && named !== '' ? named : assetIdForSolana(address);
  if (!isValidAssetId(assetId)) throw new ContractError('token.address (or token.assetId) does not form a valid asset id');
  return { assetId, symbol };
}

function point(raw: Record<string, unknown>): PriceChangePoint {
  return { timestamp: time(raw, 'timestamp'), priceUsd: num(raw, 'value') };
}

function direction(raw: Record<string, unknown>): PriceDirection {
  const value = raw['direction'];
  if (value === 'up') return 'UP';
  if (value === 'down') return 'DOWN';
  throw new ContractError('direction must be "up" or "down"');
}

function record(raw: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = raw[key];
  if (!isObject(value)) throw new ContractError(`${key} must be an object`);
  return value;
}

function str(raw: Record<string, unknown>, key: string): string {
  const value = raw[key];
  if (typeof value !== 'string' || value === '') throw new ContractError(`${key} must be a non-empty string`);
  return value;
}

function num(raw: Record<string, unknown>, key: string): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ContractError(`${key} must be a number`);
  return value;
}

function time(raw: Record<string, unknown>, key: string): string {
  const value = raw[key];
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new ContractError(`${key} must be an ISO 8601 timestamp`);
  return new Date(ms).toISOString();
}
