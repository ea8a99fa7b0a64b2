import { isUuid } from '../inputs.js';
import { userError, type UserError } from './user-errors.js';

/** A response lists at most this many problems: 10,000 bad addresses are not 10,000 entries. */
const MAX_USER_ERRORS = 20;

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const VERIFICATION_CODE_RE = /^\d{6}$/;

export const isEmail = (value: string): boolean => value.length <= 254 && EMAIL_RE.test(value);
export const isVerificationCode = (value: string): boolean => VERIFICATION_CODE_RE.test(value);

/** Length in Unicode code points, as the upstream counts (an emoji is one character). */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** The URL when the text is an absolute http(s) URL, else null. */
export function isHttpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** Collects problems of one input, capped at `MAX_USER_ERRORS`. */
export class Problems {
  readonly list: UserError[] = [];

  add(message: string, field: readonly (string | number)[], code: UserError['code'] = 'INVALID_INPUT'): void {
    if (this.list.length < MAX_USER_ERRORS) this.list.push(userError(code, message, field));
  }

  get empty(): boolean {
    return this.list.length === 0;
  }
}

/** An optional list of app ids: omitted means every app; given, it holds 1–100 UUIDs (deduplicated). */
export function checkAppIds(appIds: readonly string[] | null | undefined, problems: Problems): string[] | undefined {
  if (appIds === null || appIds === undefined) return undefined;
  if (appIds.length === 0 || appIds.length > 100) {
    problems.add('appIds holds 1–100 app ids; omit it to mean every app.', ['appIds']);
    return undefined;
  }
  appIds.forEach((id, i) => {
    if (!isUuid(id)) problems.add('An app id is a UUID.', ['appIds', i]);
  });
  return [...new Set(appIds)];
}
