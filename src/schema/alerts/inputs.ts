import { badUserInput } from '../../errors.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** An optional app id argument: a UUID, or null/absent for "every subscribed app". */
export function appIdArg(appId: string | null | undefined, field = 'appId'): string | null {
  if (appId === null || appId === undefined) return null;
  if (!isUuid(appId)) throw badUserInput(`${field} must be an app's UUID (as in SubscribedApp.appId).`, field);
  return appId;
}

/** A page size argument: an integer from 1 to `max`, `fallback` when absent. */
export function firstArg(first: number | null | undefined, max: number, fallback: number, field = 'first'): number {
  if (first === null || first === undefined) return fallback;
  if (!Number.isInteger(first) || first < 1 || first > max) {
    throw badUserInput(`${field} must be an integer from 1 to ${max}.`, field);
  }
  return first;
}
