import { GraphQLError, type ValidationRule } from 'graphql';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { validatedDocuments } from '../../src/plugins/validated-documents.js';

const schema = createSchema({ typeDefs: 'type Query { a: String, b: String }', resolvers: { Query: { a: () => 'a', b: () => 'b' } } });

/** A plugin as armor's and defer-stream's are: it adds a rule on every validation and rewrites the errors it gets. */
function ruleAdding() {
  const counts = { hooks: 0, runs: 0 };
  const noB: ValidationRule = (context) => {
    counts.runs++;
    return { Field: (node) => void (node.name.value === 'b' && context.reportError(new GraphQLError('b is refused here'))) };
  };
  const plugin: Plugin = {
    onValidate({ addValidationRule }) {
      counts.hooks++;
      addValidationRule(noB);
      return ({ valid, result, setResult }) => void (valid || setResult(result.map((error) => new GraphQLError(`refused: ${error.message}`))));
    },
  };
  return { counts, plugin };
}

async function ask(yoga: ReturnType<typeof createYoga>, query: string) {
  const response = await yoga.fetch('http://gateway.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
  return response.json() as Promise<{ data?: unknown; errors?: { message: string }[] }>;
}

describe('validation decided once per document (plugins/validated-documents.ts)', () => {
  it("runs a document's validation, and the hooks that add rules, once; later requests get the same answer", async () => {
    const validated = validatedDocuments();
    const { counts, plugin } = ruleAdding();
    // Yoga's own validation cache off, as the gateway's parse cache sets it: the kept result is the only one.
    const yoga = createYoga({ schema, parserAndValidationCache: { validationCache: false }, plugins: [validated.lookup, validated.first(plugin), validated.record], logging: false });
    for (let i = 0; i < 3; i++) expect(await ask(yoga, '{ a }')).toEqual({ data: { a: 'a' } });
    expect(counts).toEqual({ hooks: 1, runs: 1 });
    for (let i = 0; i < 3; i++) expect((await ask(yoga, '{ a b }')).errors?.map((e) => e.message)).toEqual(['refused: b is refused here']);
    expect(counts).toEqual({ hooks: 2, runs: 2 });
  });

  it('guards the plugins a plugin adds when the chain is built (as armor adds its protections)', async () => {
    const validated = validatedDocuments();
    const { counts, plugin } = ruleAdding();
    const adding: Plugin = { onPluginInit: ({ addPlugin }) => addPlugin(plugin) };
    const yoga = createYoga({ schema, parserAndValidationCache: { validationCache: false }, plugins: [validated.lookup, validated.first(adding), validated.record], logging: false });
    for (let i = 0; i < 3; i++) await ask(yoga, '{ a }');
    expect(counts).toEqual({ hooks: 1, runs: 1 });
  });
});
