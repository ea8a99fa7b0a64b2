import type { Freshness } from '../../models/index.js';
import { builder } from '../builder.js';

export const FreshnessSourceEnum = builder.enumType('FreshnessSource', {
  description: 'Where a served value came from.',
  values: {
    ORIGIN: { description: 'Read from its upstream service for this request.' },
    CACHE: { description: "The gateway's shared copy, within its time-to-live and the request's `Cache-Control: max-age`." },
    STALE: {
      description:
        "The gateway's shared copy, past its time-to-live or the request's `Cache-Control` bound: served because the upstream failed, or while it is refreshed in the background.",
    },
    FALLBACK: {
      description: 'Not from the service that owns the value: the second assets service, or the token record of a market listing or position.',
    },
  } as const,
});

export const FreshnessRef = builder.objectRef<Freshness>('Freshness').implement({
  description:
    'How fresh a value is: where it came from and when it was read from its upstream. A request bounds the age of shared copies with `Cache-Control: max-age=N` or `no-cache`.',
  fields: (t) => ({
    source: t.expose('source', { type: FreshnessSourceEnum, nullable: false, description: 'Where the value came from.' }),
    asOf: t.expose('asOf', { type: 'DateTime', description: 'When the value was read from its upstream; null when unknown (a token record).' }),
    stale: t.exposeBoolean('stale', {
      nullable: false,
      description: 'Older than its time-to-live or the request\'s `Cache-Control` bound (`source` is then STALE).',
    }),
  }),
});
