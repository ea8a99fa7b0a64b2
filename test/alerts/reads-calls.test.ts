import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { me, inboxKit } from '../helpers/alerts-gateway.js';

const gw = useTestGateway({ resetControls: true });
inboxKit(gw);

describe('one call per upstream resource per request', () => {
  it('reads identity and the apps listing once however many fields need them', async () => {
    const res = await gw.execute(
      /* GraphQL */ `{
        viewer {
          id walletAddress wallet { address }
          apps { name subscribed }
          channels { subscribedApps { name description subscribed topics { name } } }
          inbox(first: 12) { edges { node { app { name description subscribed } topic { name description subscribed } } } }
        }
        again: viewer { walletAddress apps { appId } }
      }`,
      {},
      gw.viewerHeaders,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['viewer'].wallet).toEqual({ address: me.walletAddress });
    expect(res.data!['again'].walletAddress).toBe(me.walletAddress);
    expect(gw.sim.controls.counts()).toEqual({
      'alerts GET /v2/auth': 1,
      'alerts GET /v2/apps': 1,
      'alerts GET /v2/channels': 1,
      'alerts GET /v2/history': 1,
    });
  });
});
