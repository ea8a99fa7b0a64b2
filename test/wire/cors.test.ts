import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { useTestGateway } from '../helpers/gateway.js';

async function preflight(gw: ReturnType<typeof useTestGateway>, origin: string) {
  return gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
}

async function post(gw: ReturnType<typeof useTestGateway>, origin: string) {
  return gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
}

describe('CORS with CORS_ORIGINS', () => {
  const gw = useTestGateway({ config: { corsOrigins: ['https://app.example.com'] } });

  it('allows a listed origin, credentials included', async () => {
    const answer = await preflight(gw, 'https://app.example.com');
    expect(answer.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await post(gw, 'https://app.example.com')).headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('gives any other origin no CORS header, so its pages cannot read answers', async () => {
    for (const response of [await preflight(gw, 'https://evil.example'), await post(gw, 'https://evil.example')]) {
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });
});

describe('CORS by default', () => {
  const gw = useTestGateway();

  it('reflects no origin (no cross-origin caller is listed)', async () => {
    expect((await post(gw, 'https://anyone.example')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('reads CORS_ORIGINS as a list of origins and names it when wrong', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:3000' }).corsOrigins).toEqual(['https://a.example', 'http://localhost:3000']);
    expect(() => loadConfig({ CORS_ORIGINS: '*' })).toThrow(/CORS_ORIGINS/);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(/CORS_ORIGINS/);
  });
});
