import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseGraphQL } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';
import { dockerStages, lintManifest } from './helpers/manifests.js';
import { startGatewayProcess, stopProcess } from './helpers/processes.js';

/** The production posture of what ships: the image, the Kubernetes base and overlay, compose. */
const root = fileURLToPath(new URL('..', import.meta.url));
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string>>;
const stages = dockerStages(read('Dockerfile'));
const [build, run] = [stages[0]!, stages.at(-1)!];
const UPSTREAMS = { ALERTS_URL: 'http://127.0.0.1:9', MARKETS_URL: 'http://127.0.0.1:9', ASSETS_URL: 'http://127.0.0.1:9' };

type Manifest = { kind: string; metadata: { name: string }; [key: string]: any };
const yamlDocuments = (text: string) => parseAllDocuments(text).map((doc) => doc.toJS() as Manifest);
const base = readdirSync(join(root, 'deploy/k8s'))
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .flatMap((file) => yamlDocuments(read('deploy/k8s', file)));
const find = (manifests: Manifest[], kind: string, name?: string) => manifests.find((m) => m.kind === kind && (!name || m.metadata.name.startsWith(name)))!;
const container = (manifests: Manifest[]) => find(manifests, 'Deployment')['spec'].template.spec.containers[0];

/** The environment a container gets: its values, and what its ConfigMap references name (Secrets left out). */
function containerEnv(manifests: Manifest[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container(manifests).env) {
    const ref = variable.valueFrom?.configMapKeyRef;
    if ('value' in variable) env[variable.name] = variable.value;
    else if (ref) env[variable.name] = find(manifests, 'ConfigMap', ref.name)['data'][ref.key];
  }
  return env;
}

/** Where the image's manifest comes from in the repository: the build stage copies it into dist/. */
function manifestSource(): string {
  const copied = build.copy.map((line) => line.split(/\s+/)).find(([, dest]) => posix.join(build.workdir, dest!) === run.env['PERSISTED_DOCUMENTS']);
  expect(copied, 'the build stage copies the file PERSISTED_DOCUMENTS names').toBeDefined();
  return copied![0]!;
}

describe('the image', () => {
  it('runs in production with the trusted documents manifest built in, arbitrary documents refused', () => {
    expect(run.env['NODE_ENV']).toBe('production');
    expect(run.copy).toContain(`--from=build ${build.workdir}/dist ./dist`);
    expect(run.workdir).toBe(build.workdir);
    const manifest = JSON.parse(read(manifestSource())) as Record<string, string>;
    expect(Object.keys(manifest).length).toBeGreaterThanOrEqual(5);
    for (const document of Object.values(manifest)) expect(() => parseGraphQL(document)).not.toThrow();
    const config = loadConfig({ ...run.env, ...UPSTREAMS });
    expect(config.persistedDocuments).toBe(run.env['PERSISTED_DOCUMENTS']);
    expect(config.allowArbitraryDocuments).toBe(false);
    expect(run.cmd).toEqual(['node', '--max-semi-space-size=32', 'dist/server.js']);
  });

  it('holds no development or optional dependency, and no stage downloads the `node` package', () => {
    const install = run.run.find((line) => line.startsWith('npm ci'))!;
    expect(install).toMatch(/--omit=dev\b/);
    expect(install).toMatch(/--omit=optional\b/);
    // The `node` development dependency downloads a second Node 24 in its preinstall script: the base image is one.
    for (const stage of stages) for (const line of stage.run.filter((l) => l.startsWith('npm ci'))) expect(line, stage.name).toMatch(/--ignore-scripts|--omit=dev/);
    // What `npm ci --omit=dev --omit=optional` installs, read from the lockfile as npm reads it.
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }> };
    const installed = new Set(
      Object.entries(lock.packages)
        .filter(([path, entry]) => path !== '' && !entry.dev && !entry.optional && !entry.devOptional)
        .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)),
    );
    const unwanted = [...Object.keys(pkg['devDependencies']!), ...Object.keys(pkg['optionalDependencies'] ?? {})];
    // Two development dependencies are also required at run time by a production one, so the lockfile installs them:
    // yaml by @opentelemetry/sdk-node's configuration reader, @types/node by protobufjs (OTLP over gRPC).
    expect(unwanted.filter((name) => installed.has(name))).toEqual(['@types/node', 'yaml']);
    expect(unwanted).toEqual(expect.arrayContaining(['node', 'typescript', 'tsx', 'vitest', '@graphql-yoga/render-graphiql']));
    expect(installed.has('graphql-yoga')).toBe(true);
  });

  it('ships only dependencies the gateway imports (the vendored promise-helpers are installed for Yoga and envelop)', () => {
    const sources = spawnSync('grep', ['-rhoE', `(from |import\\()'(@[^/']+/)?[^/']+`, 'src'], { cwd: root, encoding: 'utf8' }).stdout;
    const imported = new Set(sources.split('\n').map((line) => line.replace(/^(from |import\()'/, '')));
    const unused = Object.keys(pkg['dependencies']!).filter((name) => !imported.has(name));
    expect(unused).toEqual(['@whatwg-node/promise-helpers']);
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, unknown> };
    // Overrides pin packages the lockfile holds (one copy of each OpenTelemetry package), never a stray name.
    const locked = new Set(Object.keys(lock.packages).map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)));
    expect(Object.keys(pkg['overrides'] ?? {}).filter((name) => !locked.has(name))).toEqual([]);
  });
});

describe('kubernetes', () => {
  it('is valid for the API server (a schema check of every manifest), and the check catches mistakes', () => {
    expect(base.flatMap(lintManifest)).toEqual([]);
    const deployment = structuredClone(find(base, 'Deployment'));
    deployment['spec'].template.spec.containers[0].resource = {};
    deployment['spec'].template.spec.containers[0].env.push({ name: 'PORT', value: 4000 });
    expect(lintManifest(deployment)).toEqual([
      'Deployment/alerts-markets-gateway container 0: unknown field resource',
      'Deployment/alerts-markets-gateway container 0: env PORT: value must be a string',
    ]);
    expect(lintManifest({ apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name' }, data: { PORT: 4000 } })).toHaveLength(3);
  });

  it('starts the gateway as the image does: the same manifest, arbitrary documents refused, CORS and tracing to fill in', () => {
    const env = containerEnv(base);
    expect(env['PERSISTED_DOCUMENTS']).toBe(run.env['PERSISTED_DOCUMENTS']);
    expect(env['ALLOW_ARBITRARY_DOCUMENTS']).toBe('false');
    const config = loadConfig(env);
    expect([config.production, config.allowArbitraryDocuments, config.corsOrigins, config.tracing]).toEqual([true, false, [], false]);
    for (const name of ['CORS_ORIGINS', 'OTEL_EXPORTER_OTLP_ENDPOINT']) expect(find(base, 'ConfigMap')['data'], name).toHaveProperty(name);
  });

  it("requests and limits memory as the README measured it: peak RSS under the request, that plus 2,000 streams under the limit", () => {
    const readme = read('README.md');
    const peakMiB = Math.max(...[...readme.matchAll(/(\d+)–(\d+) \(cache (?:on|off)\)/g)].map((m) => Number(m[2])));
    const streamsMB = Number(/2,000 streams, \d+–(\d+) MB/.exec(readme)![1]);
    const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)![1]);
    const { requests, limits } = container(base).resources;
    expect(peakMiB).toBeGreaterThan(200);
    expect(mebibytes(requests.memory)).toBeGreaterThanOrEqual(peakMiB);
    expect(mebibytes(limits.memory)).toBeGreaterThanOrEqual(peakMiB + (streamsMB * 1e6) / 2 ** 20);
  });

  const overlay = new Proxy({} as Record<string, any>, {
    get: (_target, key: string) => (parse(read('deploy/overlays/production/kustomization.yaml')) as Record<string, any>)[key],
  });

  it('has one production overlay to edit: every setting of the base ConfigMap, the image and OpenTelemetry', () => {
    expect(overlay['resources']).toEqual(['../../k8s']);
    const literals = (name: string): Record<string, string> => {
      const generator = overlay['configMapGenerator'].find((g: { name: string }) => g.name === name);
      return Object.fromEntries(generator.literals.map((line: string) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    };
    const settings = literals('gateway-upstreams');
    expect(Object.keys(settings).sort()).toEqual(Object.keys(find(base, 'ConfigMap')['data']).sort());
    expect(loadConfig({ ...containerEnv(base), ...settings }).allowArbitraryDocuments).toBe(false);
    const telemetry = literals('gateway-telemetry');
    expect(Object.keys(telemetry).every((name) => name.startsWith('OTEL_'))).toBe(true);
    expect(telemetry).toMatchObject({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_SERVICE_NAME: expect.any(String) });
    expect(overlay['images'][0].name).toBe(container(base).image.split(':')[0]);
  });

  it.runIf(spawnSync('kubectl', ['version', '--client']).status === 0)('renders with kustomize (kubectl kustomize) into valid manifests', () => {
    const rendered = spawnSync('kubectl', ['kustomize', join(root, 'deploy/overlays/production')], { encoding: 'utf8' });
    expect(rendered.stderr).toBe('');
    const manifests = yamlDocuments(rendered.stdout);
    expect(manifests.flatMap(lintManifest)).toEqual([]);
    expect(manifests.map((m) => m.kind).sort()).toEqual(['ConfigMap', 'ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Service']);
    const gateway = container(manifests);
    expect(gateway.image).toBe(`${overlay['images'][0].newName}:${overlay['images'][0].newTag}`);
    expect(gateway.envFrom).toEqual([{ configMapRef: { name: find(manifests, 'ConfigMap', 'gateway-telemetry').metadata.name } }]);
    expect(loadConfig(containerEnv(manifests)).allowArbitraryDocuments).toBe(false);
  });

  describe('a gateway process started with that environment', () => {
    let gateway: Awaited<ReturnType<typeof startGatewayProcess>>;
    beforeAll(async () => {
      // CURSOR_SECRET comes from the gateway's Secret (a secretKeyRef), which no test can read: one stands in for it.
      const env = { ...containerEnv(base), CURSOR_SECRET: 'a-cursor-secret-from-the-secret', PERSISTED_DOCUMENTS: join(root, manifestSource()), LOG_LEVEL: 'error' };
      gateway = await startGatewayProcess({ alerts: UPSTREAMS.ALERTS_URL, markets: UPSTREAMS.MARKETS_URL, assets: UPSTREAMS.ASSETS_URL }, env);
    }, 60_000);
    afterAll(() => stopProcess(gateway?.process.child));

    it('refuses a document outside the manifest, and knows the manifest\'s', async () => {
      const post = (body: unknown) =>
        fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => [r.status, ((await r.json())).errors?.[0]?.extensions?.code]);
      expect(await post({ query: '{ __typename }' })).toEqual([400, 'PERSISTED_QUERY_ONLY']);
      expect(await post({ documentId: 'sha256:' + '0'.repeat(64) })).toEqual([404, 'PERSISTED_QUERY_NOT_FOUND']);
      const [id] = Object.entries(JSON.parse(read(manifestSource())) as Record<string, string>).find(([, doc]) => doc.includes('query SearchAssets'))!;
      const [status, code] = await post({ documentId: id, variables: { query: 'sol', first: 1 } });
      expect([status, code]).not.toEqual([404, 'PERSISTED_QUERY_NOT_FOUND']);
    });
  });
});

describe('compose', () => {
  it('runs the image as it is built: the same manifest, arbitrary documents refused, CORS and tracing to fill in', () => {
    const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, { environment?: Record<string, string> }> };
    for (const [name, service] of Object.entries(compose.services).filter(([service]) => service.startsWith('gateway'))) {
      const env = service.environment!;
      expect(env['PERSISTED_DOCUMENTS'], name).toBe(run.env['PERSISTED_DOCUMENTS']);
      expect(env['ALLOW_ARBITRARY_DOCUMENTS'], name).toBe('false');
      expect(env['CORS_ORIGINS'], name).toBe('${CORS_ORIGINS:-}');
      expect(env['OTEL_EXPORTER_OTLP_ENDPOINT'], name).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    }
  });
});
