import type { IncomingHttpHeaders } from 'node:http';

/** The three upstream services the simulator plays. Each is served under its own path prefix. */
export type ServiceName = 'alerts' | 'markets' | 'assets';
export const SERVICES: readonly ServiceName[] = ['alerts', 'markets', 'assets'];

export interface SimRequest {
  service: ServiceName;
  method: string;
  /** Path below the service prefix, e.g. `/v2/channels`. */
  path: string;
  /** The route pattern that matched, e.g. `/v0/assets/:id`. */
  route: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; `undefined` when the body was empty. */
  body: unknown;
  rawBody: string;
}

export interface SimResponse {
  status: number;
  /** Serialised as JSON unless it is a string (sent as is) or undefined (empty body). */
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: SimRequest) => SimResponse | Promise<SimResponse>;

interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
}

/** A small method + path router: literal segments and `:name` parameters (decoded, one segment each). */
export class Router {
  readonly #routes: Route[] = [];

  constructor(readonly service: ServiceName) {}

  add(method: string, pattern: string, handler: Handler): this {
    this.#routes.push({ method: method.toUpperCase(), pattern, segments: split(pattern), handler });
    return this;
  }

  get(pattern: string, handler: Handler): this {
    return this.add('GET', pattern, handler);
  }

  post(pattern: string, handler: Handler): this {
    return this.add('POST', pattern, handler);
  }

  /** Literal routes win over parameterised ones, so `/v0/markets/history` is not `/v0/markets/:id`. */
  match(
    method: string,
    path: string,
  ): { route: Route; params: Record<string, string> } | { allowed: string[] } | undefined {
    const parts = split(path);
    const candidates: { route: Route; params: Record<string, string>; literals: number }[] = [];
    for (const route of this.#routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(part);
          } catch {
            ok = false;
            break;
          }
        } else if (seg === part) {
          literals++;
        } else {
          ok = false;
          break;
        }
      }
      if (ok) candidates.push({ route, params, literals });
    }
    if (candidates.length === 0) return undefined;
    candidates.sort((a, b) => b.literals - a.literals);
    const best = candidates.filter((c) => c.literals === candidates[0]!.literals);
    const hit = best.find((c) => c.route.method === method.toUpperCase());
    if (hit) return { route: hit.route, params: hit.params };
    return { allowed: [...new Set(best.map((c) => c.route.method))] };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** A request header's (first) value. */
export function header(req: SimRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Thrown by a handler or the parsers it calls; the server answers it `400 {"error": message}`. */
export class BadRequest extends Error {}

// Response helpers shaped as docs/upstream.md section 0 describes.
export const ok = (body: unknown, status = 200): SimResponse => ({ status, body });
export const badRequest = (error: string | object): SimResponse => ({ status: 400, body: { error } });
export const unauthorized = (): SimResponse => ({ status: 401, body: { error: 'unauthorized' } });
export const forbidden = (): SimResponse => ({ status: 403, body: { error: 'forbidden' } });
export const notFound = (): SimResponse => ({ status: 404, body: { error: 'not found' } });
export const conflict = (message: string): SimResponse => ({ status: 409, body: { message } });
export const unprocessable = (message: string): SimResponse => ({ status: 422, body: { message } });
