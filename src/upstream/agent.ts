import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

/**
 * undici's Agent from its own module, not the package's index: the index loads every other part of undici
 * too (fetch, WebSocket, the caches, the mock agents), which the gateway never calls, since it sends with
 * `agent.dispatch` only (transport/send.ts). The Agent's `request`, `stream` and `pipeline` helpers come with
 * the index, which assigns them to `Dispatcher.prototype`: in a process that loads only this, they are
 * missing, whatever the types say. The heap this saves is in bench/PHASES.md ("Start heap, fourth pass").
 */
const Agent = createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
type Agent = UndiciAgent;

/** The one connection pool every upstream client shares. */
export interface AgentOptions {
  /** TCP (and TLS) connect timeout. Default 2 000 ms. */
  connectTimeoutMs?: number;
  /** Timeout for the response headers once the request is sent. Default 10 000 ms (the per-call timeout of each client is usually shorter). */
  headersTimeoutMs?: number;
  /** Timeout between two body chunks. Default 10 000 ms. */
  bodyTimeoutMs?: number;
  /** Idle keep-alive sockets are closed after this. Default 10 000 ms. */
  keepAliveTimeoutMs?: number;
  /** Sockets per origin. Default 64. */
  connections?: number;
  /** Largest accepted response body in bytes. Default 32 MiB. */
  maxResponseSize?: number;
}

/** One keep-alive pool shared by every upstream client; `close()` it on shutdown. */
export function createAgent(opts: AgentOptions = {}): Agent {
  return new Agent({
    connect: { timeout: opts.connectTimeoutMs ?? 2_000 },
    headersTimeout: opts.headersTimeoutMs ?? 10_000,
    bodyTimeout: opts.bodyTimeoutMs ?? 10_000,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 10_000,
    connections: opts.connections ?? 64,
    maxResponseSize: opts.maxResponseSize ?? 32 * 1024 * 1024,
  });
}
