import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { satisfies } from './helpers/semver.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
  engines: { node: string };
  scripts: Record<string, string>;
};
/** What only the development entry (`npm start`) may load. */
const DEVELOPMENT_ONLY = /^src\/(dev\.ts|demo\.ts|simulator\/)/;

/** The modules a file loads at run time: type-only imports are erased by the compiler and do not count. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const typeOnly = ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly : node.isTypeOnly;
      if (!typeOnly) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments;
      if (specifier && ts.isStringLiteral(specifier)) out.push(specifier.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every source file and package the production entry reaches, following relative imports. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [join(root, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier).replace(/\.js$/, '.ts'));
      else packages.add(specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
    }
  }
  return { files: [...files].map((file) => relative(root, file)).sort(), packages: [...packages].sort() };
}

describe('the production entry (node dist/server.js)', () => {
  const graph = importGraph('src/server.ts');

  it('never imports the simulator, its event emitter or the demo banner', () => {
    expect(graph.files).toContain('src/app.ts');
    expect(graph.files.filter((file) => DEVELOPMENT_ONLY.test(file))).toEqual([]);
  });

  it('loads only Node built-ins and production dependencies (tsx is a development dependency)', () => {
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    const outside = graph.packages.filter((name) => !builtins.has(name) && !(name in pkg.dependencies) && !(name in pkg.optionalDependencies));
    expect(outside).toEqual([]);
    expect(pkg.dependencies).not.toHaveProperty('tsx');
    expect(pkg.devDependencies).toHaveProperty('tsx');
  });

  it('is built without the development entry, the demo and the simulator, so the image does not ship them', () => {
    const configFile = ts.readConfigFile(join(root, 'tsconfig.build.json'), (path) => ts.sys.readFile(path));
    const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
    const built = parsed.fileNames.map((file) => relative(root, file));
    expect(built).toContain('src/server.ts');
    expect(built.filter((file) => DEVELOPMENT_ONLY.test(file))).toEqual([]);
    // The image's run stage: production dependencies and the compiled dist/ only, started by the production entry.
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    const runStage = dockerfile.slice(dockerfile.lastIndexOf('FROM '));
    expect(runStage).toMatch(/npm ci --omit=dev/);
    // vendor/: the dependency the lockfile installs from the repository (vendor/README.md).
    expect(runStage.match(/^COPY .*/gm)).toEqual(['COPY package.json package-lock.json ./', 'COPY vendor ./vendor', 'COPY --from=build /app/dist ./dist']);
    // The image starts the gateway exactly as `npm run start:prod` does, with the same V8 flags.
    expect(runStage).toContain(`CMD ${JSON.stringify(pkg.scripts['start:prod']!.split(' '))}`.replaceAll(',', ', '));
  });

  it('is what npm start is not: npm start execs the development entry in one process', () => {
    // `exec`: npm's shell becomes node, so the SIGTERM a process manager sends npm reaches the gateway.
    expect(pkg.scripts['start']).toBe('exec node --import tsx src/dev.ts');
    expect(pkg.scripts['start:prod']).toBe('node --max-semi-space-size=32 dist/server.js');
    // The standalone simulator likewise: a SIGTERM to npm's PID stops it and frees its port.
    expect(pkg.scripts['simulator']).toBe('exec node --import tsx src/simulator/main.ts');
  });
});

describe('Node versions', () => {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  };
  const oldest = /^>=\s*(\d+\.\d+(?:\.\d+)?)$/.exec(pkg.engines.node)?.[1];

  it('reads semver ranges as npm does', () => {
    expect(satisfies('20.20.2', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.20.2', '>=22.15.0')).toBe(false);
    expect(satisfies('20.20.2', '>= 14.6')).toBe(true);
    expect(satisfies('20.20.2', '20 || >=22')).toBe(true);
    expect(satisfies('20.20.2', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1')).toBe(true);
    expect(satisfies('20.20.2', '>= 10.x')).toBe(true);
  });

  it.each([
    ['the oldest the project states (package.json engines)', oldest ?? 'unparsed'],
    ['this one', process.versions.node],
  ])('every locked package accepts %s (%s): npm ci warns no EBADENGINE', (_label, version) => {
    expect(oldest, `package.json engines.node must read ">=X.Y.Z", not ${pkg.engines.node}`).toBeDefined();
    const refusing = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !satisfies(version, (entry.engines as { node: string }).node))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${(entry.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });

  // One Node everywhere: .nvmrc names it; npm scripts run the pinned `node` development dependency (npm puts
  // node_modules/.bin first on PATH), so a machine whose own Node is older still tests and starts on it.
  const pinned = readFileSync(join(root, '.nvmrc'), 'utf8').trim();

  it('runs every test, and every process a test starts by name, on the Node of .nvmrc (Node 24 LTS)', () => {
    expect(pinned).toMatch(/^24\.\d+\.\d+$/);
    expect(process.versions.node).toBe(pinned);
    // Replicas, the simulator and the bench start `process.execPath`; anything started as plain `node` finds PATH's.
    expect(execFileSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()).toBe(pinned);
  });

  it('names the same Node in package.json, the image, CI and the README (the bench prints the Node it runs on)', () => {
    expect((pkg.devDependencies)['node']).toBe(pinned);
    expect(oldest?.split('.')[0]).toBe(pinned.split('.')[0]);
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile.match(/^FROM \S+/gm)).toEqual([`FROM node:${pinned}-bookworm-slim`, `FROM node:${pinned}-bookworm-slim`]);
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toContain('.nvmrc');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain(`Node ${pinned}`);
    // The committed figures were measured on it: every run recorded in bench/RESULTS.md names this Node.
    const measuredOn = [...readFileSync(join(root, 'bench/RESULTS.md'), 'utf8').matchAll(/Node v(\d+\.\d+\.\d+)/g)].map((m) => m[1]);
    expect(measuredOn.length).toBeGreaterThan(0);
    expect(new Set(measuredOn)).toEqual(new Set([pinned]));
  });
});
