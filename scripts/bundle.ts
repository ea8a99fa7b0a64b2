import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The production build (`npm run build`, after the type check): the production entry and what it imports,
 * our code and its packages, bundled into one ES module, `dist/server.js`, with the modules it loads
 * only on demand (the WebSocket server, tracing) in `dist/chunks/`. V8 keeps every loaded script's
 * source and per-function metadata for the process's life, and one bundle, tree-shaken, its whitespace
 * gone, holds less of both than the thousand files it replaces (figures in bench/PHASES.md, "The
 * production build as one bundle"). Identifiers are kept, so stack traces and error names read as in the
 * sources; the source map beside it leads back to src/ (`node --enable-source-maps`).
 *
 *   tsx scripts/bundle.ts [outdir]   # default dist/
 *
 * Left to Node at run time, from node_modules:
 * - what the code loads through `createRequire` or a computed `import()` on purpose, each for its own
 *   reason written beside it: graphql-jit behind its stand-in (src/plugins/graphql-jit.ts), undici's Agent
 *   alone (src/upstream/agent.ts), rate-limiter-flexible's three limiters, ioredis only with REDIS_URL
 *   (src/redis-client.ts), graphql-scalars' two scalars (src/schema/scalars.ts), `node:http` (src/node-http-module.ts);
 * - graphql: graphql-jit and graphql-scalars, loaded from node_modules, must share the one instance the
 *   schema is built with (its type checks are `instanceof`);
 * - OpenTelemetry, as before: its API's CommonJS build for prom-client, its SDK only once tracing starts;
 * - GraphiQL's offline assets, an optional dependency the image leaves out.
 */
const EXTERNAL = ['graphql', '@opentelemetry/*', '@graphql-yoga/render-graphiql'];

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = resolve(root, process.argv[2] ?? 'dist');

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/server.ts'],
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node24',
  tsconfig: 'tsconfig.build.json',
  external: EXTERNAL,
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'linked',
  // The CommonJS packages in the bundle require Node's built-ins (and the externals above) at run time.
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  logLevel: 'warning',
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(`bundled src/server.ts into ${outdir}: ${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024).toFixed(0)} KiB`);
