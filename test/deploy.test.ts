import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';
import { DRAIN_TIMEOUT_MS } from '../src/lifecycle.js';
import { MAX_REQUEST_BODY_BYTES } from '../src/app.js';
import { MAX_WEBHOOK_BODY_BYTES } from '../src/plugins/events-webhook.js';
import { SERVER_TIMEOUTS } from '../src/node-http.js';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const deploy = (...path: string[]) => join(root, 'deploy', ...path);

/** Every environment variable the gateway's configuration reads (recorded from a successful load). */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  const env: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    ALERTS_URL: 'http://alerts:7001',
    MARKETS_URL: 'http://markets:7002',
    ASSETS_URL: 'http://assets:7003',
  };
  loadConfig(new Proxy(env, { get: (target, name: string) => (read.add(name), target[name]) }));
  return read;
}

type Manifest = { kind: string; metadata: { name: string }; [key: string]: any };
const manifests: Manifest[] = readdirSync(deploy('k8s'))
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .flatMap((file) => parseAllDocuments(readFileSync(deploy('k8s', file), 'utf8')).map((doc) => doc.toJS() as Manifest));
const one = (kind: string) => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

const compose = parse(readFileSync(deploy('compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, { environment?: Record<string, string>; healthcheck?: { test: string[] }; depends_on?: Record<string, unknown> }>;
};
const nginx = readFileSync(deploy('nginx.conf'), 'utf8');
const EXPOSED_PORT = Number(/^EXPOSE (\d+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))![1]);

describe('deploy/', () => {
  const reads = variablesRead();
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());
  const status = async (path: string) => (await gw.app.yoga.fetch(`http://gateway.test${path}`)).status;

  it('reads the variables every file sets (the three upstreams, Redis and the secrets among them)', () => {
    expect([...reads]).toEqual(expect.arrayContaining(['PORT', 'NODE_ENV', 'ALERTS_URL', 'MARKETS_URL', 'ASSETS_URL', 'REDIS_URL', 'WEBHOOK_SECRET']));
  });

  describe('kubernetes', () => {
    const deployment = one('Deployment');
    const container = deployment['spec'].template.spec.containers[0];
    const env = new Map<string, any>(container.env.map((e: any) => [e.name, e]));

    it('names only variables the gateway reads, production ones with all three upstreams', () => {
      expect([...env.keys()].filter((name) => !reads.has(name))).toEqual([]);
      expect(env.get('NODE_ENV').value).toBe('production');
      for (const name of ['ALERTS_URL', 'MARKETS_URL', 'ASSETS_URL']) expect(env.has(name), name).toBe(true);
    });

    it('takes REDIS_URL and the secrets from a Secret holding those keys, the upstreams from a ConfigMap holding theirs', () => {
      const secret = one('Secret');
      const configMap = one('ConfigMap');
      for (const name of ['REDIS_URL', 'WEBHOOK_SECRET', 'CURSOR_SECRET', 'SERVICE_CLIENT_KEY']) {
        expect(env.get(name).valueFrom.secretKeyRef, name).toEqual({ name: secret.metadata.name, key: name });
        expect(secret['stringData'], name).toHaveProperty(name);
      }
      for (const [name, variable] of env) {
        const ref = variable.valueFrom?.configMapKeyRef;
        if (ref) expect(configMap['data'], name).toHaveProperty(ref.key);
        if (ref) expect(ref.name).toBe(configMap.metadata.name);
      }
    });

    it('serves on the port the gateway listens on, the image exposes and the Service targets', () => {
      const port = container.ports.find((p: any) => p.name === 'http');
      expect(port.containerPort).toBe(Number(env.get('PORT').value));
      expect(port.containerPort).toBe(EXPOSED_PORT);
      const service = one('Service');
      expect(service['spec'].ports.map((p: any) => p.targetPort)).toEqual(['http']);
      expect(service['spec'].selector).toEqual(deployment['spec'].selector.matchLabels);
    });

    it('probes liveness on /health and readiness on /ready, paths that answer 200', async () => {
      expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
      expect(container.readinessProbe.httpGet).toEqual({ path: '/ready', port: 'http' });
      expect(await status(container.livenessProbe.httpGet.path)).toBe(200);
      expect(await status(container.readinessProbe.httpGet.path)).toBe(200);
    });

    it('pauses before SIGTERM, and gives the pause and the drain time to finish before the kill', () => {
      const command: string[] = container.lifecycle.preStop.exec.command;
      expect(command[0]).toBe('sleep');
      const pauseSeconds = Number(command[1]);
      expect(pauseSeconds).toBeGreaterThan(0);
      expect(deployment['spec'].template.spec.terminationGracePeriodSeconds).toBeGreaterThan(pauseSeconds + DRAIN_TIMEOUT_MS / 1000);
    });

    it('requests resources, scales on CPU, and keeps a pod through voluntary disruptions', () => {
      expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      const hpa = one('HorizontalPodAutoscaler');
      expect(hpa['spec'].scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name });
      expect(hpa['spec'].minReplicas).toBeGreaterThanOrEqual(2);
      const pdb = one('PodDisruptionBudget');
      expect(pdb['spec'].selector).toEqual(deployment['spec'].selector);
      expect(pdb['spec'].minAvailable).toBeLessThan(hpa['spec'].minReplicas);
    });

    it('lists every manifest in its kustomization but the example Secret, whose placeholders would overwrite the real one', () => {
      const kustomization = parse(readFileSync(deploy('k8s', 'kustomization.yaml'), 'utf8')) as { resources: string[] };
      const files = readdirSync(deploy('k8s')).filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml');
      expect(kustomization.resources).not.toContain('secret.example.yaml');
      expect([...kustomization.resources].sort()).toEqual(files.filter((file) => file !== 'secret.example.yaml').sort());
    });

    it('believes forwarded addresses from the ingress only (TRUSTED_PROXIES, a range the configuration accepts)', () => {
      const ref = env.get('TRUSTED_PROXIES').valueFrom.configMapKeyRef;
      const value = one('ConfigMap')['data'][ref.key];
      expect(loadConfig({ TRUSTED_PROXIES: value }).trustedProxies).toEqual({ ranges: [value] });
    });
  });

  describe('compose', () => {
    const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));

    it('runs two gateway replicas in production on real upstreams, sharing the Redis it runs', () => {
      expect(gateways).toHaveLength(2);
      expect(compose.services).toHaveProperty('redis');
      for (const [name, service] of gateways) {
        const env = service.environment!;
        expect(Object.keys(env).filter((variable) => !reads.has(variable)), name).toEqual([]);
        expect(env['NODE_ENV']).toBe('production');
        expect(env['REDIS_URL']).toBe('redis://redis:6379');
        for (const variable of ['ALERTS_URL', 'MARKETS_URL', 'ASSETS_URL', 'WEBHOOK_SECRET', 'CURSOR_SECRET']) expect(env[variable], variable).toMatch(/^\$\{\w+:\?/);
        expect(Number(env['PORT'])).toBe(EXPOSED_PORT);
        expect(service.healthcheck!.test.join(' ')).toContain(`http://127.0.0.1:${env['PORT']}/ready`);
      }
    });

    it("agrees with the gateway's limits: 8 MiB webhooks pass, waits outlast the gateway's, no compression twice, no public /metrics", () => {
      const size = /client_max_body_size\s+(\d+)([km]?);/i.exec(nginx)!;
      const bytes = Number(size[1]) * ({ k: 1024, m: 1024 * 1024 } as Record<string, number>)[size[2]!.toLowerCase()]!;
      expect(bytes).toBeGreaterThanOrEqual(MAX_WEBHOOK_BODY_BYTES);
      expect(bytes).toBeGreaterThanOrEqual(MAX_REQUEST_BODY_BYTES);
      const seconds = (name: string) => Number(new RegExp(`${name}\\s+(\\d+)s;`).exec(nginx)?.[1] ?? 60);
      expect(seconds('client_body_timeout')).toBeGreaterThanOrEqual(SERVER_TIMEOUTS.requestTimeoutMs / 1000);
      expect(nginx).toMatch(/proxy_read_timeout 1h;/);
      expect(nginx).toMatch(/^\s*gzip off;/m);
      expect(nginx).toMatch(/location \/metrics \{\s*return 404;\s*\}/);
      for (const [name, service] of gateways) expect(loadConfig({ TRUSTED_PROXIES: service.environment!['TRUSTED_PROXIES'] }).trustedProxies, name).toEqual({ ranges: ['uniquelocal'] });
    });

    it('balances over both replicas on the port they serve, through nginx', async () => {
      const servers = [...nginx.matchAll(/^\s*server\s+([\w-]+):(\d+)/gm)].map((m) => [m[1], Number(m[2])]);
      expect(servers).toEqual(gateways.map(([name, service]) => [name, Number(service.environment!['PORT'])]));
      expect(compose.services['balancer']!.depends_on).toEqual(Object.fromEntries(gateways.map(([name]) => [name, { condition: 'service_healthy' }])));
      // Subscriptions over server-sent events and WebSockets pass through.
      expect(nginx).toMatch(/proxy_buffering off;/);
      expect(nginx).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
      expect(await status('/ready')).toBe(200);
    });

    // Where Debian's nginx is installed (it is here; a CI machine installs it for the cluster test).
    it.runIf(spawnSync('nginx', ['-v']).status === 0)('is a configuration nginx accepts (nginx -t)', () => {
      const prefix = mkdtempSync(join(tmpdir(), 'gateway-nginx-'));
      try {
        mkdirSync(join(prefix, 'logs'));
        // The compose service names resolve only inside compose: test the rest of the file with loopback.
        writeFileSync(join(prefix, 'nginx.conf'), nginx.replace(/server\s+gateway-\d+:/g, 'server 127.0.0.1:'));
        const check = spawnSync('nginx', ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', `pid ${prefix}/nginx.pid; error_log ${prefix}/error.log;`], {
          encoding: 'utf8',
        });
        expect(check.stderr).toContain('test is successful');
      } finally {
        rmSync(prefix, { recursive: true, force: true });
      }
    });
  });
});
