import type { DocumentNode, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Validation decided once per parsed document (the parse cache hands out the same document for the
 * same text): its result, with every rule the plugins add (armor's depth, aliases and directives, the
 * defer and stream rules) and every change they make to the errors, is kept with the document and
 * handed to each later request, whose validation then runs no rule and adds none. Otherwise every
 * request pays for the plugins adding their rules again (a new rule per request, which Yoga's
 * validation cache keys by name) though a kept result makes them moot.
 *
 * `first` wraps a plugin whose `onValidate` only matters when a document is validated: for a document
 * validated before, that hook is skipped. `lookup` hands the kept result; `record`, placed after every
 * plugin that validates or changes the errors, keeps it. Results go with their document (a WeakMap):
 * the parse cache's bound covers them.
 */
export function validatedDocuments(): { lookup: Plugin; record: Plugin; first: <P extends object>(plugin: P) => P; passed: (document: DocumentNode) => boolean } {
  const results = new WeakMap<DocumentNode, readonly Error[]>();
  const first = <P extends object>(plugin: P): P => {
    const { onValidate, onPluginInit } = plugin as Plugin;
    const guarded: Plugin = { ...plugin };
    if (onValidate) guarded.onValidate = (payload) => (results.has(documentOf(payload.params)) ? undefined : onValidate(payload));
    // Armor adds its protections as plugins of their own when the chain is built.
    if (onPluginInit) guarded.onPluginInit = (payload) => onPluginInit({ ...payload, addPlugin: (added) => payload.addPlugin(first(added)) });
    return guarded as P;
  };
  return {
    lookup: {
      onValidate({ params, setResult }) {
        const known = results.get(documentOf(params));
        if (known) setResult(known as GraphQLError[]);
      },
    },
    record: {
      onValidate({ params }) {
        const document = documentOf(params);
        if (results.has(document)) return undefined;
        return ({ result }) => void results.set(document, result);
      },
    },
    first,
    // Validated before, with no error: the direct path (src/direct/) runs only such a document.
    passed: (document) => results.get(document)?.length === 0,
  };
}

/** The document a validate hook is given (typed loosely by envelop). */
function documentOf(params: { documentAST: unknown }): DocumentNode {
  return params.documentAST as DocumentNode;
}
