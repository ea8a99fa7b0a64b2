import { expect } from 'vitest';
import type { SubscriberRecord } from '../../src/simulator/alerts/index.js';
import type { GraphQLResponse, TestGateway } from './gateway.js';

/** An app id no app of the simulator has. */
export const UNKNOWN_APP_ID = '00000000-0000-4000-8000-000000000000';

/**
 * What the alerts tests ask of a gateway on the simulator: the alerts service's call counts, the demo
 * subscriber, a subscriber's headers, and operations run as the viewer.
 */
export function alertsKit(gw: TestGateway) {
  const count = (route: string) => gw.sim.controls.count('alerts', route);
  const demo = () => gw.sim.alerts.demo;
  const me = (): SubscriberRecord => gw.sim.alerts.subscribers.get(demo().walletAddress)!;

  /** The headers of a subscriber of the simulator. */
  function headersOf(subscriber: SubscriberRecord): Record<string, string> {
    return { authorization: `Bearer ${subscriber.token}`, 'x-service-client-key': demo().clientKey };
  }

  /** Runs one named operation of a document holding several (the helper sends no operationName). */
  async function executeNamed(
    document: string,
    operationName: string,
    variables: Record<string, unknown>,
    headers: Record<string, string>,
  ): Promise<GraphQLResponse> {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
      body: JSON.stringify({ query: document, operationName, variables }),
    });
    return { status: response.status, ...((await response.json()) as Omit<GraphQLResponse, 'status'>) };
  }

  async function mutate(query: string, variables: Record<string, unknown> = {}, headers = gw.viewerHeaders) {
    const res = await gw.execute(query, variables, headers);
    expect(res.errors).toBeUndefined();
    return res.data!;
  }

  return { count, demo, me, headersOf, executeNamed, mutate };
}
