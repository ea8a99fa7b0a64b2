/** The rig's talk with the standalone simulator: latency, call counters, and the subscribers and wallet the screens use. */
import { request } from 'undici';
import type { Fixtures } from './types.js';

export async function getJson<T>(url: string): Promise<T> {
  const response = await request(url);
  if (response.statusCode !== 200) throw new Error(`GET ${url}: ${response.statusCode} ${await response.body.text()}`);
  return (await response.body.json()) as T;
}

async function postJson(url: string, body: unknown): Promise<void> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`POST ${url}: ${response.statusCode}`);
}

export async function setLatency(simUrl: string, ms: number): Promise<void> {
  for (const service of ['alerts', 'markets', 'assets']) {
    await postJson(`${simUrl}/__sim/latency`, { target: { service }, latency: ms > 0 ? { fixedMs: ms } : null });
  }
}

export async function upstreamCounts(simUrl: string): Promise<Record<string, number>> {
  const byRoute = await getJson<Record<string, number>>(`${simUrl}/__sim/requests`);
  const out: Record<string, number> = { alerts: 0, markets: 0, assets: 0 };
  for (const [key, n] of Object.entries(byRoute)) {
    const service = key.split(' ')[0]!;
    out[service] = (out[service] ?? 0) + n;
  }
  return out;
}

/** Every subscriber whose token the alerts service accepts (checked 50 at a time), and the wallet with the most positions. */
export async function loadFixtures(simUrl: string, wanted: number): Promise<Fixtures> {
  const { clientKey, subscribers } = await getJson<{ clientKey: string; subscribers: { token: string }[] }>(`${simUrl}/__sim/subscribers`);
  const accepted = async (token: string) => {
    const response = await request(`${simUrl}/alerts/v2/auth`, { headers: { authorization: `Bearer ${token}`, 'x-service-client-key': clientKey } });
    await response.body.dump();
    return response.statusCode === 200;
  };
  const tokens: string[] = [];
  for (let i = 0; i < subscribers.length && tokens.length < wanted; i += 50) {
    const chunk = subscribers.slice(i, i + 50).map((s) => s.token);
    const ok = await Promise.all(chunk.map(accepted));
    tokens.push(...chunk.filter((_, j) => ok[j]));
  }
  tokens.length = Math.min(tokens.length, wanted);
  if (tokens.length < wanted) throw new Error(`The simulator has ${tokens.length} usable subscriber tokens; the signed-in screens need ${wanted}.`);
  const { wallets } = await getJson<{ wallets: { address: string; positions: number }[] }>(`${simUrl}/__sim/wallets`);
  return { clientKey, tokens, wallet: wallets[0]! };
}
