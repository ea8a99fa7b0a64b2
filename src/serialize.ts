import { GraphQLError, type DocumentNode, type ExecutionResult } from 'graphql';

/** A result as executed: graphql-jit, the response cache and the collapse may give it a `stringify` of its own. */
type Stringified = ExecutionResult & { stringify?: (result: ExecutionResult) => string };

/**
 * The JSON text of a single execution result, byte for byte what Yoga's result processing writes for
 * it: the result's own `stringify` when it has one (a cached answer's held body, graphql-jit's), else
 * JSON.stringify; `extensions.http` (sent as headers) and the errors' internal extensions
 * (`http`, `unexpected`) left out. Both the Yoga pipeline and the answers written at the listener go
 * through the same bytes (test/serialize.test.ts compares them on every fixture operation and screen).
 *
 * `document` is the operation's parsed document, the key a serializer made per document would be found
 * by. None is made: on Node 24 serializers generated from a document's shape (one function per
 * selection, its keys read by name, the text concatenated or joined) measured slower than
 * JSON.stringify once the text is written to the socket (bench/PHASES.md, "Serialization").
 */
export function serializeResult(result: ExecutionResult, _document?: DocumentNode): string {
  const stringify = (result as Stringified).stringify ?? JSON.stringify;
  return stringify(withoutInternals(result));
}

/** The result without what Yoga keeps out of the body (as its result processing leaves it out); unchanged when there is none. */
function withoutInternals(result: ExecutionResult): ExecutionResult {
  const { extensions } = result;
  if (!result.errors?.length && !extensions?.['http']) return result;
  const sanitized: ExecutionResult = { ...result };
  if (sanitized.errors) sanitized.errors = sanitized.errors.map(withoutInternalExtensions);
  if (extensions) {
    const { http: _http, ...rest } = extensions;
    sanitized.extensions = Object.keys(rest).length ? rest : undefined;
  }
  return sanitized;
}

function withoutInternalExtensions(error: GraphQLError): GraphQLError {
  if (!(error instanceof GraphQLError)) return error;
  const { http: _http, unexpected: _unexpected, ...extensions } = error.toJSON().extensions ?? {};
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError ?? undefined,
    extensions: Object.keys(extensions).length ? extensions : undefined,
  });
}
