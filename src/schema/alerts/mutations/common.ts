import type { Context } from '../../../context.js';
import { builder } from '../../builder.js';
import { SubscriberRef } from '../../refs.js';
import { UserErrorRef, type UserError } from './user-errors.js';

/** What every mutation payload carries. */
export interface PayloadBase {
  userErrors: UserError[];
  clientMutationId: string | null;
}

export const CLIENT_MUTATION_ID =
  'Any string of yours, echoed in the payload to match answers to requests (the Relay convention).';

export const INPUT = 'What to do.';
export const INPUT_OPTIONAL = 'What to do; may be omitted, as every field is optional.';

export const MutationPayloadRef = builder.interfaceRef<PayloadBase>('MutationPayload').implement({
  description: 'What every mutation answers: `userErrors` is empty when the mutation did what was asked.',
  fields: (t) => ({
    userErrors: t.field({
      type: [UserErrorRef],
      nullable: false,
      description: 'Expected failures (bad input, refusals the caller can act on); empty on success.',
      resolve: (payload) => payload.userErrors,
    }),
    clientMutationId: t.exposeString('clientMutationId', { description: 'The `clientMutationId` of the input, as sent.' }),
  }),
});

/** The `viewer` field of a subscriber mutation's payload. */
export const viewerField = {
  type: SubscriberRef,
  description: 'The caller after the change: its `channels`, `apps` and `inbox` are read afresh.',
  resolve: (_payload: unknown, _args: unknown, ctx: Context) => ctx.alerts.identity(),
} as const;

/** The payload fields every mutation sets, from its outcome. */
export function outcome(input: { clientMutationId?: string | null | undefined }, userErrors: UserError[] = []): PayloadBase {
  return { userErrors, clientMutationId: input.clientMutationId ?? null };
}

/** A payload whose changed object is the caller itself (`viewer`). */
export function viewerPayload(name: string, description: string) {
  return builder.objectRef<PayloadBase>(name).implement({
    description,
    interfaces: [MutationPayloadRef],
    fields: (t) => ({ viewer: t.field(viewerField) }),
  });
}
