import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';

/**
 * The repository's own Markdown, read by a CommonMark parser rather than by eye: a fence closed with
 * text behind it on the same line leaves a code block open and every heading after it renders as code.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const MARKDOWN_FILES = ['README.md', 'CHANGELOG.md'].filter((file) => existsSync(join(root, file)));

/** A CommonMark reading of Markdown source: its block tokens, and the inline tokens inside them. */
function parseMarkdown(source: string): { blocks: Token[]; inline: Token[] } {
  const blocks = new MarkdownIt('commonmark').parse(source, {});
  return { blocks, inline: blocks.flatMap((token) => token.children ?? []) };
}

/** The source lines (0-based) that start with `## `: what a writer meant as level-2 headings. */
function h2SourceLines(source: string): number[] {
  return source.split('\n').flatMap((line, i) => (line.startsWith('## ') ? [i] : []));
}

/** The fences whose closing line is missing: CommonMark runs such a block to the end of the document. */
function openFences(source: string, blocks: Token[]): number[] {
  const lines = source.split('\n');
  return blocks
    .filter((token) => token.type === 'fence' && token.map)
    .filter((token) => {
      const last = lines[token.map![1] - 1]?.trim() ?? '';
      const marker = token.markup[0]!;
      return token.map![1] - token.map![0] < 2 || !new RegExp(`^\\${marker}{${token.markup.length},}$`).test(last);
    })
    .map((token) => token.map![0] + 1);
}

/** Links that are neither absolute URLs nor same-document anchors, with their `#fragment` dropped. */
function relativeLinks(inline: Token[]): string[] {
  return inline
    .filter((token) => token.type === 'link_open')
    .map((token) => String(token.attrGet('href') ?? ''))
    .filter((href) => !/^[a-z][a-z0-9+.-]*:/i.test(href) && !href.startsWith('#'))
    .map((href) => decodeURI(href.split('#')[0]!));
}

describe.each(MARKDOWN_FILES)('%s as CommonMark', (file) => {
  const source = readFileSync(join(root, file), 'utf8');
  const { blocks, inline } = parseMarkdown(source);

  it('renders every `## ` line of the source as a level-2 heading', () => {
    const rendered = blocks.filter((token) => token.type === 'heading_open' && token.tag === 'h2').map((token) => token.map![0]);
    expect(rendered).toEqual(h2SourceLines(source));
  });

  it('leaves no code fence open', () => {
    expect(openFences(source, blocks)).toEqual([]);
  });

  it('links only to files the repository holds', () => {
    const links = relativeLinks(inline);
    const missing = links.filter((href) => !existsSync(join(root, dirname(file), href)));
    expect(missing.map((href) => relative(root, join(root, dirname(file), href)))).toEqual([]);
  });

  it('names only Markdown files the repository holds, linked or not', () => {
    const named = [...source.matchAll(/[\w./-]*\w\.md\b/g)].map((m) => m[0]);
    expect(named.filter((name) => !existsSync(join(root, dirname(file), name)))).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const broken = [
    '# T',
    '',
    '## One',
    '',
    '```json',
    '{"a":1}',
    '``` And then prose.',
    '',
    '## Two',
    '',
    'See [the API](API.md), [a section](#one) and [the site](https://example.com).',
    '',
  ].join('\n');

  it('catch a fence closed with text on its line, the heading it swallows and a link to a missing file', () => {
    const { blocks } = parseMarkdown(broken);
    expect(openFences(broken, blocks)).toEqual([5]);
    expect(blocks.filter((token) => token.type === 'heading_open' && token.tag === 'h2')).toHaveLength(1);
    expect(h2SourceLines(broken)).toHaveLength(2);
    const fixed = broken.replace('``` And then prose.', '```\n\nAnd then prose.');
    expect(relativeLinks(parseMarkdown(fixed).inline)).toEqual(['API.md']);
    expect(existsSync(join(root, 'API.md'))).toBe(false);
  });
});
