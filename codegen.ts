import { addTypenameSelectionDocumentTransform, type ClientPresetConfig } from '@graphql-codegen/client-preset';
import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * `npm run codegen`: typed documents for frontend teams, from the committed schema and the golden
 * operations the integration tests run (test/operations/*.graphql), into examples/client/gql/:
 *
 * - `graphql.ts` / `gql.ts`: a TypedDocumentNode per operation (result and variables typed), each
 *   carrying its persisted-document hash in `__meta__.hash`;
 * - `persisted-documents.json`: `{ "sha256:<hex>": "<document>" }`, the manifest the gateway reads from
 *   `PERSISTED_DOCUMENTS` (documents sent by hash alone; nothing else runs in production);
 * - `possible-types.ts`: the interfaces' and unions' member types, for Apollo Client's `possibleTypes`.
 *
 * Every document gets `__typename` on each selection set, as Apollo Client's cache adds it: the server
 * runs the persisted text, so the text must already hold what the cache needs.
 */

/** The schema's custom scalars (src/schema/builder.ts): each is mapped, and `strictScalars` fails codegen on a new one left unmapped. */
const scalars = {
  // ISO 8601 text on the wire, both ways.
  DateTime: 'string',
  // Any JSON value (a market's passthrough `additionalData`): typed as what JSON can hold, not `any`.
  JSON: 'Record<string, unknown> | unknown[] | string | number | boolean | null',
};

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/operations/*.graphql'],
  ignoreNoDocuments: false,
  generates: {
    'examples/client/gql/': {
      preset: 'client',
      presetConfig: {
        persistedDocuments: true,
        fragmentMasking: false,
      } satisfies ClientPresetConfig,
      documentTransforms: [addTypenameSelectionDocumentTransform],
      config: {
        scalars,
        strictScalars: true,
        enumsAsTypes: true,
        useTypeImports: true,
        avoidOptionals: false,
        // `./graphql.js`, as Node's ESM resolution (and this repository's NodeNext) wants.
        emitLegacyCommonJSImports: false,
      },
    },
    'examples/client/gql/possible-types.ts': {
      plugins: ['fragment-matcher'],
      config: { apolloClientVersion: 3, useExplicitTyping: true },
    },
  },
};

export default config;
