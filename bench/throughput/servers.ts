/** The measured servers: the built gateway as production starts it, the hand-written baseline and the bare server, each a fresh pinned process. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { measure } from './measure.js';
import { freePort, startNode, waitReady, type Proc } from './processes.js';
import type { Screen } from './screens.js';
import { SERVER_CORE, type Rig, type ServerKind, type Target, type ThroughputOptions, type ThroughputRow } from './types.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm run start:prod` (the image's command too): node's flags and the entry, run as production runs them. */
export const PRODUCTION_COMMAND = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod']!;

/**
 * The heap V8 is given in the deployment's container: Node sizes it from the container's memory limit
 * (deploy/k8s/deployment.yaml), half of it for the old generation and never under 256 MiB, the same as this
 * flag. Without it each server would get a heap sized for the bench machine's whole memory, whose collector
 * lets the old generation grow to several times what is live before it collects: a heap production never runs.
 */
export function containerHeapFlag(memoryLimit = deploymentMemoryLimit()): string {
  const mebibytes = /^(\d+)Mi$/.exec(memoryLimit);
  if (!mebibytes) throw new Error(`a container memory limit in Mi, not ${memoryLimit}`);
  return `--max-old-space-size=${Math.max(256, Number(mebibytes[1]) / 2)}`;
}

/** The gateway container's memory limit in deploy/k8s/deployment.yaml (`512Mi`). */
export function deploymentMemoryLimit(): string {
  const deployment = parseAllDocuments(readFileSync(join(ROOT, 'deploy/k8s/deployment.yaml'), 'utf8'))[0]!.toJS() as {
    spec: { template: { spec: { containers: { resources?: { limits?: { memory?: string } } }[] } } };
  };
  return deployment.spec.template.spec.containers[0]?.resources?.limits?.memory ?? 'none';
}

const [, ...commandArgs] = PRODUCTION_COMMAND.split(' ');
const PRODUCTION_ARGS = [containerHeapFlag(), ...commandArgs.map((arg) => (arg.endsWith('.js') ? join(ROOT, arg) : arg))];
/** Node's own flags of that command (`--max-semi-space-size=32`) and the container's heap: the baseline and the bare server run with them too. */
const NODE_FLAGS = PRODUCTION_ARGS.filter((arg) => arg.startsWith('--'));

/** What each gateway kind changes in production's configuration (names from src/config.ts). */
const GATEWAY_ENV: Record<'gateway' | 'gateway-off' | 'gateway-cold', Record<string, string>> = {
  gateway: {},
  'gateway-off': { RESPONSE_CACHE: 'off' },
  'gateway-cold': { RESPONSE_CACHE: 'off', POSITIONS_SHARE_TTL_MS: '0', AUTH_IDENTITY_TTL_MS: '0' },
};

export async function startTarget(rig: Rig, kind: ServerKind, bodyFile?: string): Promise<Target> {
  const port = await freePort();
  const core = rig.pinned ? SERVER_CORE : null;
  let proc: Proc;
  let health: string;
  if (kind === 'gateway' || kind === 'gateway-off' || kind === 'gateway-cold') {
    // One load generator is one caller: the per-caller rate limit (a guard against one client flooding) is off unless the bench's environment sets it.
    const gatewayEnv = { RATE_LIMIT_PER_MINUTE: '0', ...rig.env, PORT: String(port), ...GATEWAY_ENV[kind] };
    const args = rig.gatewayEntry ? [...NODE_FLAGS, rig.gatewayEntry] : PRODUCTION_ARGS;
    proc = startNode([...(rig.nodeFlags ?? []), ...args], gatewayEnv, core);
    health = `http://127.0.0.1:${port}/health`;
  } else if (kind === 'baseline') {
    // Plain JavaScript, as the gateway runs from dist/: no TypeScript loader compiling in the measured process.
    proc = startNode([...NODE_FLAGS, ...(rig.nodeFlags ?? []), rig.baselineJs], { ...rig.env, PORT: String(port) }, core);
    health = `http://127.0.0.1:${port}/health`;
  } else {
    proc = startNode([...NODE_FLAGS, ...(rig.nodeFlags ?? []), '--import', 'tsx', join(ROOT, 'bench/throughput/bare.ts')], { ...rig.env, PORT: String(port), BODY_FILE: bodyFile }, core);
    health = `http://127.0.0.1:${port}/`;
  }
  try {
    await waitReady(proc, health);
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { kind, proc, port, turn: 0 };
}

/** A fresh process: its first `coldRequests` requests (cold), then a warm window. */
export async function coldAndWarm(rig: Rig, kind: ServerKind, screen: Screen, latencyMs: number, round: number, options: ThroughputOptions, log: (row: ThroughputRow) => void) {
  const target = await startTarget(rig, kind);
  try {
    const cold = await measure(rig, target, screen, latencyMs, 'cold', round, options);
    log(cold.row);
    const warm = await measure(rig, target, screen, latencyMs, 'warm', round, options);
    log(warm.row);
    return { rows: [cold.row, warm.row], body: warm.body ?? cold.body };
  } finally {
    await target.proc.stop();
  }
}
