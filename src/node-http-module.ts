import { createRequire } from 'node:module';

/**
 * Node's `http` module, required rather than imported. An ES import of `node:http` reads every export of
 * the built-in, among them the lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters, and those load
 * Node's own bundled undici (fetch and WebSocket), which the gateway never uses: a `require` leaves them
 * unread. The measured difference is in bench/PHASES.md ("Start heap, fourth pass"); test/lazy-modules.test.ts
 * fails when the bundled undici is loaded again. Import the module's types from `node:http` with `import type`.
 */
export const http = createRequire(import.meta.url)('node:http') as typeof import('node:http');
