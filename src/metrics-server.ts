import type { Server } from 'node:http';
import { http } from './node-http-module.js';
import type { Registry } from 'prom-client';

/**
 * `GET /metrics` on a listener of its own (`METRICS_PORT`), for the scraper only: deployments expose
 * this port to Prometheus and never to the load balancer, and the public port then answers 404 for
 * `/metrics` (app.ts). Anything else here is 404 too. Starts nothing: `lifecycle.ts` listens and closes.
 */
export function createMetricsServer(registry: Registry): Server {
  return http.createServer((req, res) => {
    const path = req.url?.split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics only\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics could not be collected: ${(error as Error).message}\n`),
    );
  });
}
