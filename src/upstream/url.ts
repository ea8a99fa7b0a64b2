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
  let text = '';
  for (const key in query) {
    const value = query[key];
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue;
    const joined = Array.isArray(value) ? value.join(',') : String(value);
    text += `${text ? '&' : '?'}${formEncoded(key)}=${formEncoded(joined)}`;
  }
  return text;
}

/** Characters `URLSearchParams` leaves as they are (application/x-www-form-urlencoded). */
const FORM_SAFE = /^[A-Za-z0-9*\-._]*$/;

/**
 * One name or value encoded exactly as `URLSearchParams` encodes it (space as `+`, everything but
 * `FORM_SAFE` percent-encoded as UTF-8, a lone surrogate as U+FFFD), without building one per call:
 * most values (ids, numbers, cursors) need no encoding at all.
 */
function formEncoded(text: string): string {
  if (FORM_SAFE.test(text)) return text;
  return encodeURIComponent(text.toWellFormed())
    .replace(/%20/g, '+')
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
