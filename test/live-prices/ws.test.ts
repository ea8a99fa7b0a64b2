import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { nodeListener } from '../../src/node-http.js';
import { attachGraphQLWs } from '../../src/ws.js';
import type { TestGateway } from '../helpers/gateway.js';
import { PRICES, startLiveGateway, untilNoSubscribers, VOLATILE } from './helpers.js';

describe('Subscription.prices over graphql-ws', () => {
  let gw: TestGateway;
  let server: Server;
  let closeWs: () => Promise<void>;
  beforeAll(async () => {
    gw = await startLiveGateway();
    server = createServer(nodeListener(gw.app.yoga));
    closeWs = attachGraphQLWs(server, gw.app.yoga, { production: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await closeWs?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await gw?.close();
  });

  it('sends the first prices and then changes over a WebSocket, and refuses an unknown id with BAD_USER_INPUT', async () => {
    const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const client = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0 });
    const events = client.iterate<{ prices: { assetId: string; usd: number }[] }>({ query: PRICES, variables: { ids: VOLATILE } });
    const first = await events.next();
    expect(first.value?.data?.prices.map((t: { assetId: string }) => t.assetId)).toEqual(VOLATILE);
    const second = await events.next();
    expect(second.value.data?.prices.length).toBeGreaterThan(0);
    await events.return?.();

    const refused = client.iterate({ query: PRICES, variables: { ids: ['solana:UnknownMint11111111111111111111111111'] } });
    expect((await refused.next()).value).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT', field: 'assetIds' } }] });
    await client.dispose();
    await untilNoSubscribers(gw);
  });
});
