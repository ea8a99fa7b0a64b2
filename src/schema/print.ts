import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.js';

/** The schema as committed in schema.graphql: sorted, so diffs show real changes only. */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
