/**
 * Readers of the deploy files for the tests: the Dockerfile's stages, and a schema check of Kubernetes
 * manifests. kubeconform is on neither npm nor Debian's archive, so this checks the fields these
 * manifests use against the Kubernetes API's rules (types, names, required fields, known keys): a typo
 * such as `resource:` or an unquoted number in a ConfigMap fails here instead of at `kubectl apply`.
 */

export interface DockerStage {
  name: string;
  workdir: string;
  env: Record<string, string>;
  run: string[];
  copy: string[];
  cmd: string[] | null;
}

/** The Dockerfile's stages, in order, with their instructions (continuation lines joined). */
export function dockerStages(dockerfile: string): DockerStage[] {
  const lines = dockerfile.replace(/\\\n\s*/g, ' ').split('\n').filter((line) => line.trim() && !line.startsWith('#'));
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    const args = rest.join(' ');
    if (instruction === 'FROM') stages.push({ name: /\bAS (\S+)/i.exec(args)?.[1] ?? '', workdir: '/', env: {}, run: [], copy: [], cmd: null });
    const stage = stages.at(-1);
    if (!stage) continue;
    if (instruction === 'WORKDIR') stage.workdir = args;
    if (instruction === 'RUN') stage.run.push(args);
    if (instruction === 'COPY') stage.copy.push(args);
    if (instruction === 'CMD') stage.cmd = JSON.parse(args) as string[];
    if (instruction === 'ENV') for (const pair of rest) stage.env[pair.split('=')[0]!] = pair.slice(pair.indexOf('=') + 1);
  }
  return stages;
}

type Json = Record<string, any>;

const API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  PodDisruptionBudget: 'policy/v1',
};
const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'data', 'stringData', 'type']);
const CONTAINER_KEYS = new Set([
  'name', 'image', 'imagePullPolicy', 'command', 'args', 'workingDir', 'ports', 'env', 'envFrom', 'resources',
  'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'securityContext', 'volumeMounts',
]);
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const QUANTITY = /^\d+(\.\d+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringMap = (value: unknown) => isObject(value) && Object.values(value).every((v) => typeof v === 'string');

function lintContainer(container: Json, at: string, problems: string[]): void {
  const fail = (message: string) => problems.push(`${at}: ${message}`);
  for (const key of Object.keys(container)) if (!CONTAINER_KEYS.has(key)) fail(`unknown field ${key}`);
  if (!DNS_LABEL.test(String(container['name']))) fail('name is not a DNS label');
  if (typeof container['image'] !== 'string' || !container['image']) fail('image is missing');
  const portNames = new Set<string>();
  for (const port of container['ports'] ?? []) {
    if (!Number.isInteger(port.containerPort) || port.containerPort < 1 || port.containerPort > 65535) fail(`containerPort ${port.containerPort}`);
    if (port.name !== undefined && !/^[a-z0-9-]{1,15}$/.test(port.name)) fail(`port name ${port.name}`);
    if (port.name) portNames.add(port.name);
  }
  for (const variable of container['env'] ?? []) {
    if (!ENV_NAME.test(String(variable.name))) fail(`env name ${variable.name}`);
    const hasValue = 'value' in variable;
    if (hasValue === 'valueFrom' in variable) fail(`env ${variable.name}: exactly one of value and valueFrom`);
    if (hasValue && typeof variable.value !== 'string') fail(`env ${variable.name}: value must be a string`);
    const ref = variable.valueFrom?.configMapKeyRef ?? variable.valueFrom?.secretKeyRef;
    if ('valueFrom' in variable && (!ref?.name || !ref?.key)) fail(`env ${variable.name}: valueFrom names no key`);
  }
  for (const source of container['envFrom'] ?? []) if (!source.configMapRef?.name && !source.secretRef?.name) fail('envFrom names no ConfigMap or Secret');
  for (const [kind, amounts] of Object.entries((container['resources'] ?? {}) as Json)) {
    for (const [resource, amount] of Object.entries(amounts as Json)) if (!QUANTITY.test(String(amount))) fail(`resources.${kind}.${resource} ${amount}`);
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    const port = container[probe]?.httpGet?.port;
    if (typeof port === 'string' && !portNames.has(port)) fail(`${probe} names port ${port}, which the container lacks`);
  }
}

/** What is wrong with one manifest, as the API server would refuse it (empty when nothing is). */
export function lintManifest(manifest: Json): string[] {
  const problems: string[] = [];
  const at = `${manifest['kind']}/${manifest['metadata']?.name}`;
  const fail = (message: string) => problems.push(`${at}: ${message}`);
  if (!(manifest['kind'] in API_VERSIONS)) return [`${at}: unknown kind`];
  if (manifest['apiVersion'] !== API_VERSIONS[manifest['kind']]) fail(`apiVersion ${manifest['apiVersion']}, expected ${API_VERSIONS[manifest['kind']]}`);
  for (const key of Object.keys(manifest)) if (!TOP_LEVEL.has(key)) fail(`unknown field ${key}`);
  const metadata = manifest['metadata'] as Json | undefined;
  if (!metadata || !DNS_SUBDOMAIN.test(String(metadata['name']))) fail('metadata.name is not a DNS subdomain');
  if (metadata?.['labels'] !== undefined && !isStringMap(metadata['labels'])) fail('labels must be strings');
  if (metadata?.['annotations'] !== undefined && !isStringMap(metadata['annotations'])) fail('annotations must be strings');
  const spec = (manifest['spec'] ?? {}) as Json;
  switch (manifest['kind']) {
    case 'ConfigMap':
    case 'Secret':
      for (const key of ['data', 'stringData']) if (manifest[key] !== undefined && !isStringMap(manifest[key])) fail(`${key} values must be strings`);
      break;
    case 'Deployment': {
      const labels = spec['template']?.metadata?.labels ?? {};
      const selector = spec['selector']?.matchLabels ?? {};
      if (!Object.keys(selector).length || Object.entries(selector).some(([k, v]) => labels[k] !== v)) fail('selector does not match the pod labels');
      const containers = spec['template']?.spec?.containers;
      if (!Array.isArray(containers) || containers.length === 0) fail('no containers');
      else containers.forEach((container: Json, i: number) => lintContainer(container, `${at} container ${i}`, problems));
      break;
    }
    case 'Service':
      for (const port of spec['ports'] ?? []) if (!Number.isInteger(port.port)) fail(`port ${port.port}`);
      if (!isStringMap(spec['selector'])) fail('selector must map labels to strings');
      break;
    case 'HorizontalPodAutoscaler':
      if (!(spec['minReplicas'] <= spec['maxReplicas'])) fail('minReplicas above maxReplicas');
      if (!spec['scaleTargetRef']?.name) fail('no scaleTargetRef');
      break;
    case 'PodDisruptionBudget':
      if (!isObject(spec['selector'])) fail('no selector');
      break;
  }
  return problems;
}
