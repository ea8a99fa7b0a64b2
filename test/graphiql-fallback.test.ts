import { describe, expect, it } from 'vitest';
import { renderGraphiQL } from '../src/graphiql.js';

const title = 'Alerts & Markets gateway';

describe('GraphiQL with and without its optional offline assets', () => {
  it('serves the page with its scripts inlined from the package when installed (npm ci)', async () => {
    const page = await renderGraphiQL({ title });
    expect(page).toContain(`<title>${title}</title>`);
    expect(page).not.toMatch(/<script[^>]+src="?https?:/);
  });

  it("serves Yoga's own page, its scripts from a CDN, where the package is left out (npm ci --omit=optional)", async () => {
    const missing = () => Promise.reject(Object.assign(new Error("Cannot find package '@graphql-yoga/render-graphiql'"), { code: 'ERR_MODULE_NOT_FOUND' }));
    const page = await renderGraphiQL({ title }, missing);
    expect(page).toContain(`<title>${title}</title>`);
    expect(page).toMatch(/<script[^>]+src="?https:\/\/unpkg\.com\//);
    // Any other failure is not hidden.
    await expect(renderGraphiQL({ title }, () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
  });
});
