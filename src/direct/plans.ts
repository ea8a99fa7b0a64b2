import type { IncomingMessage } from 'node:http';
import { getOperationAST, OperationTypeNode, type DocumentNode, type OperationDefinitionNode } from 'graphql';
import { KnownBodies } from '../fast-path/bodies.js';
import { readHitRequest, readKnownPost, type HitRequest, type Sent } from '../fast-path/hit-request.js';
import type { CompiledDocument, CompiledDocuments } from '../plugins/jit.js';

/** A request the direct path answers: what it read, and what was decided once for its document. */
export interface Plan {
  request: HitRequest;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  compiled: CompiledDocument;
}

/** What a plan is decided from (path.ts `DirectPathOptions`). */
export interface PlanOptions {
  debugLedger: boolean;
  arbitraryDocuments: boolean;
  documentOf(query: string): DocumentNode | undefined;
  passed(document: DocumentNode): boolean;
  compiled: CompiledDocuments;
}

/** A body's plan, remembered by its bytes: its parameters (read, never changed) and what was decided once for its document. */
type KnownPlan = Omit<Plan, 'request'> & { sent: Sent };

/**
 * Bodies whose plan is remembered: the screens' documents, a few dozen at most. A plan holds its
 * document and compiled query, which the parse cache and the JIT's hold too while they keep them.
 */
const KNOWN_PLANS = { name: 'direct_bodies', maxBodies: 64, maxBytes: 512 * 1024 };

/**
 * The direct path's plans: from a request and its parsed body, or from a JSON body's bytes. A screen
 * sends the same body bytes on every request (the caller is in the headers): a body planned before is
 * found by its bytes (fast-path/bodies.ts), and neither parsed nor looked up again; the request's
 * headers are read each time. Null for a request the pipeline answers.
 */
export function createPlans(options: PlanOptions) {
  const known = new KnownBodies<KnownPlan>(KNOWN_PLANS);
  const ofBody = (req: IncomingMessage, body: unknown): Plan | null => {
    const request = readHitRequest(req, body, options.debugLedger, undefined, true);
    return request && planOf(options, request);
  };
  const ofBytes = (req: IncomingMessage, bytes: Buffer): Plan | null => {
    const held = known.find(bytes);
    if (held !== undefined) {
      const request = readKnownPost(req, held.sent, options.debugLedger, undefined, true);
      return request && { request, document: held.document, operation: held.operation, compiled: held.compiled };
    }
    // Read now: the body waited as bytes on the request (node-http.ts `GatewayRequest`).
    const plan = ofBody(req, (req as IncomingMessage & { body?: unknown }).body);
    if (plan) known.remember(bytes, { sent: plan.request.sent, document: plan.document, operation: plan.operation, compiled: plan.compiled });
    return plan;
  };
  return { ofBody, ofBytes };
}

function planOf(options: PlanOptions, request: HitRequest): Plan | null {
  if (!options.arbitraryDocuments) return null;
  const document = options.documentOf(request.query);
  if (!document || !options.passed(document)) return null;
  const compiled = options.compiled.get(document);
  const operation = compiled && getOperationAST(document, request.operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return null;
  return { request, document, operation, compiled };
}
