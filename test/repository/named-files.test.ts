import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A person who clones the repository can open every document the code cites: a comment that says
 * "see UPSTREAM.md" for a file only the original authors had sends a reader nowhere.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const SOURCE_FOLDERS = ['src', 'scripts', 'bench', 'examples', 'deploy'];
const SOURCE_FILES = ['Dockerfile', 'codegen.ts', 'vitest.config.ts', 'eslint.config.js'];

function walk(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(path);
    return /\.(ts|js|yaml|conf|graphql)$/.test(entry.name) ? [path] : [];
  });
}

/** The Markdown files a text names (`docs/upstream.md`, `./RESULTS.md`, `README.md`). */
export function namedDocuments(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.-])((?:\.{1,2}\/)?(?:[\w.-]+\/)*[\w-]+\.md)\b/g)].map((m) => m[1]!);
}

/** Whether a name resolves, from the naming file's folder or from the repository's root. */
function exists(file: string, name: string): boolean {
  return existsSync(join(root, dirname(file), name)) || existsSync(join(root, name));
}

describe('files named in the source', () => {
  const files = [...SOURCE_FOLDERS.flatMap(walk), ...SOURCE_FILES.filter((file) => existsSync(join(root, file)))];

  it('reads the source (src/, scripts/, bench/, examples/, deploy/)', () => {
    expect(files.filter((file) => file.startsWith('src/')).length).toBeGreaterThan(50);
    expect(files).toContain('src/upstream/alerts/types.ts');
  });

  it('names only documents the repository holds', () => {
    const missing = files.flatMap((file) =>
      namedDocuments(readFileSync(join(root, file), 'utf8'))
        .filter((name) => !exists(file, name))
        .map((name) => `${file}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it('finds names in comments, with or without a folder, and checks them against the tree', () => {
    expect(namedDocuments('/** The contract (UPSTREAM.md section 4), see docs/upstream.md and ../README.md. */')).toEqual([
      'UPSTREAM.md',
      'docs/upstream.md',
      '../README.md',
    ]);
    expect(exists('src/app.ts', 'UPSTREAM.md')).toBe(false);
    expect(exists('src/app.ts', 'docs/upstream.md')).toBe(true);
    expect(exists('bench/run.ts', './RESULTS.md')).toBe(true);
    expect(relative(root, join(root, 'docs', 'upstream.md'))).toBe('docs/upstream.md');
  });
});
