import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DateTimeResolver as DateTime, JSONResolver as JSON } from 'graphql-scalars';

/**
 * The two graphql-scalars scalars the schema uses, each from its own module. The package's index builds
 * every one of its scalars at import, which a heap measurement showed holds about 1 MB live for good,
 * and its `exports` map offers no per-scalar entry; the files are reached through the package's exported
 * `package.json`, as ES modules, so they share the one `graphql` the rest of the gateway loads.
 */
const packageRoot = dirname(createRequire(import.meta.url).resolve('graphql-scalars/package.json'));

async function scalarModule<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(join(packageRoot, 'esm', 'scalars', file)).href)) as T;
}

export const { GraphQLDateTime: DateTimeResolver } = await scalarModule<{ GraphQLDateTime: typeof DateTime }>('iso-date/DateTime.js');
export const { GraphQLJSON: JSONResolver } = await scalarModule<{ GraphQLJSON: typeof JSON }>('json/JSON.js');
