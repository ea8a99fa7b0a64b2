/** Paths and query strings of upstream calls: every caller-given value is encoded, never spliced. */

export type QueryValue = string | number | boolean | readonly string[] | null | undefined;
export type Query = Record<string, QueryValue>;

/**
 * Builds a path from a template, encoding every interpolated value as one path segment:
 * ``path`/v0/assets/${id}/history` `` never lets an id add a segment or a query.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/** Query string from a record: undefined, null and empty lists are left out; lists become comma lists. */
export function buildQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (value.length > 0) params.set(key, value.join(','));
    } else {
      params.set(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}
