import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';

describe('client key', () => {
  it('answers 401 without the configured X-Service-Client-Key', async () => {
    const keyed = await startSimulator({ seed: 42, clientKey: 'sck_test_key' });
    try {
      const no = await fetch(`${keyed.urls.markets}/v0/markets?limit=1`);
      expect(no.status).toBe(401);
      const wrong = await fetch(`${keyed.urls.markets}/v0/positions/owners?walletAddresses=x`, { headers: { 'X-Service-Client-Key': 'nope' } });
      expect(wrong.status).toBe(401);
      const yes = await fetch(`${keyed.urls.markets}/v0/markets?limit=1`, { headers: { 'X-Service-Client-Key': 'sck_test_key' } });
      expect(yes.status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});
