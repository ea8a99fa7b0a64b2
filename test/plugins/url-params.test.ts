import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

describe('malformed variables or extensions in URL parameters', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  const fetchAs = async (path: string, init: RequestInit = {}) => {
    const response = await gw.app.yoga.fetch(`http://gateway.test${path}`, { ...init, headers: { accept: 'application/json', ...init.headers } });
    return { status: response.status, text: await response.text() };
  };

  it.each([
    ['GET variables={', '/graphql?query=%7B__typename%7D&variables=%7B', 'variables'],
    ['GET extensions=nope', '/graphql?query=%7B__typename%7D&extensions=nope', 'extensions'],
    ['GET variables=[1]', '/graphql?query=%7B__typename%7D&variables=%5B1%5D', 'variables'],
    ['GET /graphql/stream variables={', '/graphql/stream?query=%7B__typename%7D&variables=%7B', 'variables'],
    ['GET /graphql/stream extensions=nope', '/graphql/stream?query=%7B__typename%7D&extensions=nope', 'extensions'],
  ])('answers 400 BAD_USER_INPUT to %s, with no error-level log', async (_name, path, parameter) => {
    const errorLog = vi.spyOn(gw.services.logger, 'error');
    const { status, text } = await fetchAs(path);
    expect(status).toBe(400);
    expect(text).toContain('BAD_USER_INPUT');
    expect(text).toContain(`The \\"${parameter}\\" parameter must be a JSON object`);
    expect(text).not.toMatch(/stack|node_modules|SyntaxError/);
    expect(errorLog).not.toHaveBeenCalled();
    errorLog.mockRestore();
  });

  it('answers 400 to a form-encoded POST with variables={', async () => {
    const errorLog = vi.spyOn(gw.services.logger, 'error');
    const { status, text } = await fetchAs('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'query=%7B__typename%7D&variables=%7B',
    });
    expect(status).toBe(400);
    expect(text).toContain('BAD_USER_INPUT');
    expect(errorLog).not.toHaveBeenCalled();
    errorLog.mockRestore();
  });

  it('still runs well-formed URL parameters, by GET and by form-encoded POST', async () => {
    const query = encodeURIComponent('query($s: Boolean!) { __typename @include(if: $s) }');
    const get = await fetchAs(`/graphql?query=${query}&variables=%7B%22s%22%3Atrue%7D&extensions=%7B%7D`);
    expect(get).toEqual({ status: 200, text: '{"data":{"__typename":"Query"}}' });
    const form = await fetchAs('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body: `query=${query}&variables=${encodeURIComponent('{"s":true}')}`,
    });
    expect(form).toEqual({ status: 200, text: '{"data":{"__typename":"Query"}}' });
  });
});
