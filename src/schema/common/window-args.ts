import type { ArgBuilder } from '@pothos/core';
import type { Resolution } from '../../models/index.js';
import { builder } from '../builder.js';
import { ResolutionEnum } from '../enums.js';
import type { WindowRules } from './inputs.js';

type Types = typeof builder.$inferSchemaTypes;

/**
 * The arguments of a history field (`from`, `to`, `resolution`), checked by `checkWindow` with the same
 * `rules`: the resolution's default comes from them. The descriptions say what the endpoint offers.
 */
export function windowArgs<R extends Resolution>(
  arg: ArgBuilder<Types>,
  rules: WindowRules<R>,
  descriptions: { from: string; to: string; resolution: string },
) {
  return {
    from: arg({ type: 'DateTime', required: true, description: descriptions.from }),
    to: arg({ type: 'DateTime', description: descriptions.to }),
    resolution: arg({ type: ResolutionEnum, defaultValue: rules.defaultResolution, description: descriptions.resolution }),
  };
}
