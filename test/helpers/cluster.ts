import { freePort, type StartedProcess } from './processes.js';

/** The two-replica cluster's pieces: its constants, HAProxy's configuration, readiness and event reading. */

export const ROOT = new URL('../../', import.meta.url).pathname;
export const SECRET = 'cluster-webhook-secret';
export const RATE_LIMIT = 30;
export const SEND_ROUTE = 'alerts POST /v2/:appId/send';

export interface Replica {
  url: string;
  process: StartedProcess;
}

/** The first `next` event's data on a GraphQL over SSE stream. */
export async function firstEvent(body: ReadableStream<Uint8Array>): Promise<unknown> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (const block of buffer.split('\n\n').slice(0, -1)) {
      const lines = block.split('\n');
      if (!lines.includes('event: next')) continue;
      const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim());
      return JSON.parse(data.join('\n'));
    }
  }
  throw new Error('the event stream ended without an event');
}

export function haproxyConfig(port: number, servers: string[]): string {
  return `global
  maxconn 512

defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  # Event streams stay open.
  timeout tunnel 30s
  # A request refused at connect time (a replica gone) goes to the other one. One server connection
  # per request: a request never rides an idle connection to a replica that has died since.
  retries 2
  option redispatch
  option http-server-close
  timeout check 2s

frontend gateway
  bind 127.0.0.1:${port}
  default_backend replicas

backend replicas
  balance roundrobin
  option httpchk GET /ready
${servers.map((url, i) => `  server r${i} ${new URL(url).host} check inter 250ms fall 3 rise 2`).join('\n')}
`;
}

/** Polls `/ready` until 200; fails at once if the process exits, with what it printed. */
export async function untilReady(url: string, started: StartedProcess): Promise<void> {
  for (;;) {
    if (started.child.exitCode !== null) throw new Error(`${url}: exited (${started.child.exitCode}) before it was ready:\n${started.output()}`);
    const status = await fetch(`${url}/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
