import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

/** The lines a logger writes, parsed. */
function capture() {
  const lines: Record<string, any>[] = [];
  const logger = createLogger({ logLevel: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('createLogger', () => {
  it('redacts credentials passed along with headers, at the top level or one level down', () => {
    const { logger, lines } = capture();
    const headers = {
      authorization: 'Bearer secret-token',
      'x-service-client-key': 'client-key-1',
      'x-service-api-key': 'api-key-1',
      accept: 'application/json',
    };
    logger.warn({ headers, req: { headers }, apiKey: 'api-key-2', clientKey: 'client-key-2', authorization: 'Bearer other' }, 'oops');

    const text = JSON.stringify(lines);
    for (const secret of ['secret-token', 'client-key-1', 'api-key-1', 'api-key-2', 'client-key-2', 'Bearer other']) {
      expect(text).not.toContain(secret);
    }
    // Redacted, not dropped: the line still says which headers there were.
    expect(lines[0]).toMatchObject({
      msg: 'oops',
      headers: { authorization: '[redacted]', accept: 'application/json' },
      req: { headers: { 'x-service-api-key': '[redacted]' } },
    });
  });
});
