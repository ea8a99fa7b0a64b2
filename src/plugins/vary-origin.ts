import type { Plugin } from 'graphql-yoga';

/**
 * `Vary: Origin` on every answer when CORS is on (`CORS_ORIGINS`): an answer carries
 * `Access-Control-Allow-Origin` for the origin that asked, or none, so a shared cache must not hand
 * one origin's answer to another. Before the wire encoding, whose compressed answers and `304`s keep `Vary`.
 */
export function useVaryOrigin(): Plugin {
  return {
    onResponse({ response }) {
      if (!/(^|,)\s*origin\s*(,|$)/i.test(response.headers.get('vary') ?? '')) response.headers.append('vary', 'Origin');
    },
  };
}
