/**
 * Builds a trusted documents manifest `{ "<sha256>": "<document>" }` from a folder of `.graphql` files,
 * one document per file, the shape GraphQL Code Generator's client preset emits (it prefixes its keys
 * `sha256:`; the gateway reads both, and `npm run codegen` writes that one):
 *
 *   npm run documents:manifest -- test/operations persisted-documents.json
 *
 * The gateway reads it from the file `PERSISTED_DOCUMENTS` names.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { documentHash } from '../src/plugins/trusted-documents.js';

export function buildManifest(folder: string): Record<string, string> {
  const manifest: Record<string, string> = {};
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.graphql')).sort()) {
    const document = readFileSync(join(folder, file), 'utf8');
    manifest[documentHash(document)] = document;
  }
  return manifest;
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  const [folder = 'test/operations', out = 'persisted-documents.json'] = process.argv.slice(2);
  const manifest = buildManifest(folder);
  writeFileSync(out, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`${Object.keys(manifest).length} documents from ${folder} written to ${out}`);
}
