import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { expect, vi } from 'vitest';
import { WebSocket } from 'ws';
import { attachGraphQLWs } from '../../src/ws.js';
import type { TestGateway } from './gateway.js';
import { nodeListener } from '../../src/node-http.js';

/** GraphQL over WebSocket for tests: the gateway on a real port, graphql-ws clients, and a raw socket. */

export interface Listening {
  url: string;
  close(): Promise<void>;
}

/** The gateway on a real port, HTTP and WebSocket together, as `src/lifecycle.ts` serves it. */
export async function listen(gw: TestGateway, production = false): Promise<Listening> {
  const server: Server = createServer(nodeListener(gw.app.yoga));
  const closeWs = attachGraphQLWs(server, gw.app.yoga, { production });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/graphql`,
    async close() {
      await closeWs();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const clients: Client[] = [];

export function connect(url: string, connectionParams?: Record<string, unknown>): Client {
  const client = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  clients.push(client);
  return client;
}

/** The names of the process warnings emitted while `fn` runs. */
export async function warningsDuring(fn: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    await fn();
    // Node emits a warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return warnings;
}

/** A graphql-transport-ws socket driven message by message, as a client that does not follow graphql-ws's client would. */
export async function rawSocket(url: string) {
  const ws = new WebSocket(url, 'graphql-transport-ws');
  const messages: { id?: string; type: string; payload?: unknown }[] = [];
  ws.on('message', (data) => messages.push(JSON.parse((data as Buffer).toString('utf8'))));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ type: 'connection_init' }));
  await vi.waitFor(() => expect(messages.some((m) => m.type === 'connection_ack')).toBe(true));
  return {
    send: (message: object) => ws.send(JSON.stringify(message)),
    /** The first `next` or `error` message for `id`. */
    answer: (id: string) =>
      vi.waitFor(() => {
        const found = messages.find((m) => m.id === id && (m.type === 'next' || m.type === 'error'));
        expect(found).toBeDefined();
        return found!;
      }),
    close: () => ws.close(),
  };
}

export type Answer = { data?: any; errors?: readonly { message: string; extensions?: Record<string, any> }[] };

/** One query's answer: its result, or the errors the server answered the operation with. */
export function run(client: Client, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let result: Answer = {};
    client.subscribe(
      { query, variables },
      {
        next: (value) => (result = value),
        error: (error) => (Array.isArray(error) ? resolve({ errors: error }) : reject(error instanceof Error ? error : new Error('the operation failed', { cause: error }))),
        complete: () => resolve(result),
      },
    );
  });
}
