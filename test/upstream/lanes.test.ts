import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallBudget, OperationDeadline } from '../../src/operation/index.js';
import { createHttpClient, type BreakerState, type HttpClient } from '../../src/upstream/http.js';
import { DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION } from '../../src/upstream/transport/lanes.js';

// An upstream that holds every request until the test lets it answer, counting those it holds.
let server: Server;
let held: ServerResponse[] = [];
let mostHeld = 0;
const agent = new Agent({ connections: 128 });
const states: BreakerState[] = [];
let http: HttpClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    held.push(res);
    mostHeld = Math.max(mostHeld, held.length);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  http = createHttpClient({
    service: 'assets',
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    agent,
    retry: false,
    timeoutMs: 5_000,
    shareGets: false,
    breaker: { volumeThreshold: 5, consecutiveFailures: 3, errorThresholdPercentage: 50 },
    onBreakerStateChange: (_service, state) => states.push(state),
  });
});
afterAll(async () => {
  http.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await agent.close();
});
beforeEach(() => {
  held = [];
  mostHeld = 0;
});

const answerAll = () => {
  const answering = held;
  held = [];
  for (const res of answering) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  return answering.length;
};
const until = async (check: () => boolean) => {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check(), `held ${held.length}`).toBe(true);
};

describe("one operation's calls to a service", () => {
  it(`are at most ${DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION} in flight at once; the rest wait their turn, and another operation's call does not`, async () => {
    const scope = { budget: new CallBudget(500) };
    const total = DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 25;
    const calls = Array.from({ length: total }, (_, i) => http.get(`/v0/assets/a${i}`, { scope }));
    await until(() => held.length === DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION);

    // Another operation is not queued behind the first one's line.
    const other = http.get('/v0/assets/other', { scope: { budget: new CallBudget(500) } });
    await until(() => held.length === DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 1);

    let answered = 0;
    while (answered < total + 1) {
      answered += answerAll();
      await until(() => held.length > 0 || answered === total + 1);
    }
    await Promise.all([...calls, other]);
    expect(mostHeld).toBe(DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 1);
    expect(scope.budget.used).toBe(total);
  });

  it("ends the waiting calls at the operation's deadline, and the breaker does not count them", async () => {
    const scope = { budget: new CallBudget(500), deadline: new OperationDeadline(1_000) };
    const calls = Array.from({ length: DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 30 }, (_, i) => http.get(`/v0/assets/d${i}`, { scope }).then(() => 'ok', (error: { code?: string }) => error.code));
    await until(() => held.length === DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION);
    const outcomes = await Promise.all(calls);
    // Those sent ran out of time too (the deadline ends them below the line); the thirty waiting were never sent.
    expect(outcomes).toEqual(Array(DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 30).fill('DEADLINE'));
    expect(mostHeld).toBe(DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION);
    answerAll();
    expect(states).toEqual([]);
    // The upstream still serves the next caller.
    const next = http.get('/v0/assets/next', { scope: { budget: new CallBudget(500) } });
    await until(() => held.length === 1);
    answerAll();
    await expect(next).resolves.toEqual({});
  });

  it('lets a waiting call go when its caller aborts, freeing nothing that was not its own', async () => {
    const controller = new AbortController();
    const scope = { budget: new CallBudget(500), signal: controller.signal };
    const calls = Array.from({ length: DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 5 }, (_, i) => http.get(`/v0/assets/c${i}`, { scope }).then(() => 'ok', (error: { code?: string }) => error.code));
    await until(() => held.length === DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION);
    controller.abort();
    expect(await Promise.all(calls)).toEqual(Array(DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION + 5).fill('ABORTED'));
    answerAll();
    expect(mostHeld).toBe(DEFAULT_CALLS_IN_FLIGHT_PER_OPERATION);
  });
});
