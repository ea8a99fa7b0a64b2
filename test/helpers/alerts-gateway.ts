import { beforeAll, expect } from 'vitest';
import type { AlertRecord, SubscriberRecord } from '../../src/simulator/alerts/index.js';
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

/** The demo subscriber as the simulator holds it, read before the file's tests by `inboxKit`. */
export let me: SubscriberRecord;

export interface PageData {
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: { cursor: string; node: { id: string; notificationId: string; timestamp: string; app: { appId: string } | null } }[];
}

/** The inbox tests' reference and paging, on the demo subscriber (`me`, read before the file's tests). */
export function inboxKit(gw: TestGateway) {
  beforeAll(() => {
    me = gw.sim.alerts.subscribers.get(gw.sim.alerts.demo.walletAddress)!;
  });
  const { count } = alertsKit(gw);
  const subscribedAppIds = (s: SubscriberRecord) => new Set([...s.apps].filter(([, set]) => set.size > 0).map(([id]) => id));
  const newestFirst = (a: AlertRecord, b: AlertRecord) =>
    a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;

  /** What the sim holds for the demo subscriber's inbox: one app's, or every subscribed app's. */
  function expectedInbox(appId?: string): AlertRecord[] {
    const scope = appId ? new Set([appId]) : subscribedAppIds(me);
    return me.inbox.filter((a) => scope.has(a.appId)).sort(newestFirst);
  }

  const INBOX_PAGE = /* GraphQL */ `
    query Page($first: Int, $after: String, $appId: String) {
      viewer {
        inbox(first: $first, after: $after, appId: $appId) {
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
          edges { cursor node { id notificationId timestamp app { appId } } }
        }
      }
    }
  `;

  async function page(variables: Record<string, unknown>): Promise<PageData> {
    const res = await gw.execute(INBOX_PAGE, variables, gw.viewerHeaders);
    expect(res.errors).toBeUndefined();
    return res.data!['viewer'].inbox as PageData;
  }

  async function pageToEnd(first: number, appId?: string) {
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const p: PageData = await page({ first, after, appId });
      pages++;
      expect(p.pageInfo.hasPreviousPage).toBe(after !== null);
      ids.push(...p.edges.map((e) => e.node.notificationId));
      if (!p.pageInfo.hasNextPage) break;
      expect(p.edges).toHaveLength(first);
      after = p.pageInfo.endCursor;
      expect(pages).toBeLessThan(50);
    }
    return { ids, pages };
  }

  return { count, subscribedAppIds, expectedInbox, page, pageToEnd };
}
