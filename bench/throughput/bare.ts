/**
 * The ceiling of the throughput rig: a bare node HTTP server answering every request with one fixed
 * body (read once from `BODY_FILE`, the bytes of a screen's response), after reading the request body.
 * Started by bench/throughput/run.ts as its own process, pinned like the gateway: `PORT`, `BODY_FILE`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env['BODY_FILE'] ?? '/dev/null');
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
