import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';

/** deploy/ keeps /metrics apart: on METRICS_PORT, reached by the scraper only, never through the public Service or nginx. */

const root = fileURLToPath(new URL('..', import.meta.url));
const deploy = (...path: string[]) => join(root, 'deploy', ...path);
type Manifest = { kind: string; metadata: { name: string; labels?: Record<string, string> }; spec: any };
const read = (...path: string[]) => parseAllDocuments(readFileSync(deploy(...path), 'utf8')).map((doc) => doc.toJS() as Manifest);

const deployment = read('k8s', 'deployment.yaml')[0]!;
const pod = deployment.spec.template;
const container = pod.spec.containers[0];
const envValue = (name: string) => container.env.find((e: { name: string }) => e.name === name)?.value as string;
const COMPONENT = ['k8s', 'components', 'prometheus'];

describe('kubernetes', () => {
  const metricsPort = Number(envValue('METRICS_PORT'));

  it('serves /metrics on METRICS_PORT, a container port of its own that the configuration accepts', () => {
    const config = loadConfig({ PORT: envValue('PORT'), METRICS_PORT: envValue('METRICS_PORT') });
    expect(config.metricsPort).toBe(metricsPort);
    expect(container.ports.find((p: { name: string }) => p.name === 'metrics')?.containerPort).toBe(metricsPort);
  });

  it('tells Prometheus to scrape each pod there, and the public Service never carries that port', () => {
    expect(pod.metadata.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metricsPort), 'prometheus.io/path': '/metrics' });
    const service = read('k8s', 'service.yaml')[0]!;
    for (const port of service.spec.ports) expect([port.targetPort, port.port]).not.toContainEqual(expect.stringMatching(/metrics/));
    expect(service.spec.ports.map((p: { targetPort: unknown }) => p.targetPort)).not.toContain(metricsPort);
  });

  it('offers a ServiceMonitor as a kustomize component: a headless Service of the metrics port, which the public Service is not', () => {
    const kustomization = parse(readFileSync(deploy(...COMPONENT, 'kustomization.yaml'), 'utf8')) as { kind: string; resources: string[] };
    expect(kustomization.kind).toBe('Component');
    const files = readdirSync(deploy(...COMPONENT)).filter((file) => file !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    const manifests = files.flatMap((file) => read(...COMPONENT, file));
    const metricsService = manifests.find((m) => m.kind === 'Service')!;
    const monitor = manifests.find((m) => m.kind === 'ServiceMonitor')!;
    expect(metricsService.spec.clusterIP).toBe('None');
    expect(metricsService.spec.selector).toEqual(deployment.spec.selector.matchLabels);
    expect(metricsService.spec.ports).toEqual([{ name: 'metrics', port: metricsPort, targetPort: 'metrics' }]);
    const selects = (labels: Record<string, string> = {}) => Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => labels[k] === v);
    expect(selects(metricsService.metadata.labels)).toBe(true);
    expect(selects(read('k8s', 'service.yaml')[0]!.metadata.labels)).toBe(false);
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
  });

  it.runIf(spawnSync('kubectl', ['version', '--client']).status === 0)('builds with kustomize, the component added to deploy/k8s', () => {
    const dir = mkdtempSync(join(deploy(), '.kustomize-'));
    try {
      writeFileSync(join(dir, 'kustomization.yaml'), 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../k8s]\ncomponents: [../k8s/components/prometheus]\n');
      const built = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
      expect(built.stderr).toBe('');
      const kinds = parseAllDocuments(built.stdout).map((doc) => (doc.toJS() as Manifest).kind);
      expect(kinds.filter((kind) => kind === 'ServiceMonitor')).toHaveLength(1);
      expect(kinds.filter((kind) => kind === 'Service')).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compose', () => {
  const compose = parse(readFileSync(deploy('compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, string>; ports?: string[] }>;
  };
  const nginx = readFileSync(deploy('nginx.conf'), 'utf8');
  const gateways = Object.entries(compose.services).filter(([name]) => name.startsWith('gateway'));

  it('gives each replica a METRICS_PORT that nginx never balances to and no service publishes', () => {
    expect(gateways.length).toBeGreaterThan(0);
    const balanced = [...nginx.matchAll(/^\s*server\s+[\w-]+:(\d+)/gm)].map((m) => m[1]);
    const published = Object.values(compose.services).flatMap((service) => service.ports ?? []);
    for (const [name, { environment: env }] of gateways) {
      expect(loadConfig({ PORT: env!['PORT'], METRICS_PORT: env!['METRICS_PORT'] }).metricsPort, name).toBe(Number(env!['METRICS_PORT']));
      expect(balanced).not.toContain(env!['METRICS_PORT']);
      expect(published.join(' ')).not.toContain(env!['METRICS_PORT']);
    }
  });
});
