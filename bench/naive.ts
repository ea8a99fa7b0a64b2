/**
 * The peer of `MobileHome`: a client with no gateway, calling the three REST services itself, one call
 * after another as a screen's code typically chains them (each call needs the previous one's answer or
 * is simply awaited in turn). It gathers what `MobileHome` shows and no more.
 */
import { performance } from 'node:perf_hooks';
import type { Simulator } from '../src/simulator/index.js';
import { restGet } from './harness.js';

/** How many positions and top lending markets the screen shows (`MobileHome`'s defaults). */
export const HOME_POSITIONS = 20;
export const HOME_MARKETS = 5;

interface RawToken {
  address: string;
}
interface RawMarket {
  id: string;
  type: string;
  token?: RawToken;
}
interface RawPosition {
  id: string;
  market?: RawMarket;
}

export interface NaiveRun {
  ms: number;
  /** Round trips the client made. */
  roundTrips: number;
}

/** Asset ids of the tokens whose price `MobileHome` shows: `token` of the positions' lending and yield markets. */
function priceTokens(markets: readonly (RawMarket | undefined)[]): string[] {
  return markets
    .filter((m): m is RawMarket => !!m && (m.type === 'lending' || m.type === 'yield') && !!m.token)
    .map((m) => `solana:${m.token!.address}`);
}

export async function naiveMobileHome(sim: Simulator): Promise<NaiveRun> {
  const { demo } = sim.alerts;
  const subscriber = { authorization: `Bearer ${demo.token}`, 'x-service-client-key': demo.clientKey };
  const { alerts, markets, assets } = sim.urls;
  let roundTrips = 0;
  const get = <T>(url: string, headers: Record<string, string> = {}) => {
    roundTrips++;
    return restGet<T>(url, headers);
  };

  const started = performance.now();
  const { walletAddress } = await get<{ walletAddress: string }>(`${alerts}/v2/auth`, subscriber);
  await get(`${alerts}/v2/channels`, subscriber);
  await get(`${alerts}/v2/history/summary`, subscriber);
  const { positions } = await get<{ positions: RawPosition[] }>(
    `${markets}/v0/positions/owners?walletAddresses=${encodeURIComponent(walletAddress)}`,
  );
  // A reward position whose record carries no market stays without one: the REST API has no market-by-id call.
  const positionTokens = [...new Set(priceTokens(positions.slice(0, HOME_POSITIONS).map((p) => p.market)))];
  for (const id of positionTokens) await get(`${assets}/v0/assets/${encodeURIComponent(id)}`);
  // The top lending markets carry their token records (symbol, icon): no asset call is needed for them.
  await get(`${markets}/v0/markets?type=lending&limit=${HOME_MARKETS}`);
  const ms = performance.now() - started;

  return { ms, roundTrips };
}
