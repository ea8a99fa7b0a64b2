/**
 * How each kind of configuration value is read and checked: every error names the variable at fault.
 */

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `not a URL: expected something like http://127.0.0.1:7001`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http(s) URL');
  if (url.search || url.hash) throw new ConfigError(name, 'must not carry a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

/** Origins as browsers send them: scheme, host and port, no path. `*` is refused: credentials go to listed origins only. */
export function corsOrigins(value: string | null): string[] {
  const origins = (value ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  for (const origin of origins) {
    let url: URL | null = null;
    try {
      url = new URL(origin);
    } catch {
      // reported below
    }
    if (!url || url.origin !== origin) throw new ConfigError('CORS_ORIGINS', `${JSON.stringify(origin.slice(0, 100))} is not an origin such as https://app.example.com`);
  }
  return origins;
}

export function redisUrl(value: string | null): string | null {
  if (value === null) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('REDIS_URL', 'not a URL: expected redis://host:6379');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError('REDIS_URL', 'must be a redis:// or rediss:// URL');
  return value;
}

export function onOff(value: string | null, name: string, fallback: boolean): boolean {
  return twoValued(value, name, ['on', 'off'], fallback);
}

/** A two-valued variable (`true`/`false`, `on`/`off`); `fallback` when unset. */
export function twoValued(value: string | null, name: string, [yes, no]: [string, string], fallback: boolean): boolean {
  if (value === null) return fallback;
  if (value === yes) return true;
  if (value === no) return false;
  throw new ConfigError(name, `must be ${yes} or ${no}`);
}

export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number from ${min} to ${max}`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be a whole number from ${min} to ${max}`);
  return n;
}
