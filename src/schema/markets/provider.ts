import { builder } from '../builder.js';
import { ProviderRef } from '../refs.js';
import { HELD_RECORDS } from '../sync-global-ids.js';

builder.node(ProviderRef, {
  description: 'A protocol that offers markets (Kamino, marginfi, Jupiter ...).',
  id: { resolve: (provider) => provider.providerId, description: 'Opaque global id (Relay).' },
  // Held with the markets of the market index.
  extensions: { [HELD_RECORDS]: true },
  // `nodes(ids:)` may complete a node before Pothos brands it with its type: then this decides.
  isTypeOf: (value) => typeof value === 'object' && value !== null && 'providerId' in value && !('marketId' in value),
  loadOne: (providerId, ctx) => ctx.markets.provider(providerId),
  fields: (t) => ({
    providerId: t.exposeString('providerId', { nullable: false, description: "The markets service's own provider id, e.g. `kamino`." }),
    name: t.exposeString('name', { nullable: false, description: 'Display name.' }),
    icon: t.exposeString('icon', { description: 'Logo URL.' }),
  }),
});
