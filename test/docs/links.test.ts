import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The Markdown pages whose links are checked: README.md, every page under docs/, and the benchmarks' guide and results. */
function pages(): string[] {
  const walk = (dir: string): string[] =>
    existsSync(path.join(ROOT, dir))
      ? readdirSync(path.join(ROOT, dir)).flatMap((name) => {
          const rel = path.join(dir, name);
          if (statSync(path.join(ROOT, rel)).isDirectory()) return walk(rel);
          return rel.endsWith('.md') ? [rel] : [];
        })
      : [];
  return ['README.md', ...walk('docs'), 'bench/README.md', ...walk('bench/results')].filter((f) =>
    existsSync(path.join(ROOT, f)),
  );
}

/** The text outside fenced code blocks and inline code spans, lines kept in place. */
export function prose(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/(`+)[^`]*?\1/g, '');
    })
    .join('\n');
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers: its headings' (a repeated one gets -1, -2…) and explicit `<a id>` / `<a name>`. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

/** Each link's target with its line: inline links and images, and reference definitions. */
export function links(markdown: string): Array<{ line: number; target: string }> {
  return prose(markdown)
    .split('\n')
    .flatMap((text, i) => [
      ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ line: i + 1, target: m[1] })),
      ...[...text.matchAll(/^\s*\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/g)].map((m) => ({ line: i + 1, target: m[1] })),
    ]);
}

/** What is wrong with each relative link of `page`: a file that is not there, or an anchor the page lacks. */
export function brokenLinks(page: string, read: (file: string) => string | null): string[] {
  const text = read(page) ?? '';
  return links(text).flatMap(({ line, target }) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // http:, https:, mailto: …
    const [rawFile, anchor] = target.split('#', 2);
    const file = decodeURIComponent(rawFile.split('?')[0]);
    const resolved = file ? path.normalize(path.join(path.dirname(page), file)) : page;
    const where = `${page}:${line}: ${target}`;
    if (resolved.startsWith('..')) return [`${where} points outside the repository`];
    const body = read(resolved);
    if (body === null) return [`${where}: ${resolved} does not exist`];
    if (!anchor || !resolved.endsWith('.md')) return [];
    return anchors(body).has(decodeURIComponent(anchor)) ? [] : [`${where}: ${resolved} has no heading #${anchor}`];
  });
}

/** The repository paths a page names in inline code (`src/app.ts`, `test/support/`), with their lines; placeholders left out. */
export function namedPaths(markdown: string): Array<{ line: number; path: string }> {
  let fenced = false;
  return markdown.split('\n').flatMap((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    if (fenced) return [];
    return [...text.matchAll(/`((?:src|test|bench|scripts)\/[^`\s]*)`/g)]
      .map((m) => m[1])
      .filter((p) => !/[<>*{}|]/.test(p))
      .map((p) => ({ line: i + 1, path: p }));
  });
}

function readFromDisk(file: string): string | null {
  const full = path.join(ROOT, file);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
}

describe('links between the docs', () => {
  it('are checked the way GitHub renders them', () => {
    const page = [
      '# Switchboard',
      '## Running it yourself',
      '### `send_message`',
      '## Slack — step 2: install (OAuth)',
      '## Slack — step 2: install (OAuth)',
      '```',
      '[not a link](missing.md)',
      '```',
      'See [the tool](#send_message), [x](#running-it-yourself), [y](#slack--step-2-install-oauth-1),',
      '[`code`](other.md#top) and [gone](#nowhere) and `[code](nothing.md)` and [web](https://example.com).',
    ].join('\n');
    const files: Record<string, string> = { 'a/page.md': page, 'a/other.md': '# Top' };
    expect(brokenLinks('a/page.md', (f) => files[f] ?? null)).toEqual([
      'a/page.md:10: #nowhere: a/page.md has no heading #nowhere',
    ]);
  });

  it("name only source files that exist, in the contributors' pages and the benchmarks' guide", () => {
    expect(namedPaths('See `src/app.ts`, `src/surfaces/<name>/`, `npm test` and\n```\n`src/gone.ts`\n```')).toEqual([
      { line: 1, path: 'src/app.ts' },
    ]);
    const guides = pages().filter((p) => p.startsWith('docs/contributing/') || p === 'bench/README.md');
    const missing = guides.flatMap((page) =>
      namedPaths(readFromDisk(page) ?? '')
        .filter(({ path: p }) => !existsSync(path.join(ROOT, p)))
        .map(({ line, path: p }) => `${page}:${line}: ${p}`),
    );
    expect(missing, 'these pages name files that are not there (moved or renamed?): update them').toEqual([]);
  });

  it('resolve to files that exist, and anchors to headings they have', () => {
    const broken = pages().flatMap((page) => brokenLinks(page, readFromDisk));
    expect(broken, 'fix these links').toEqual([]);
  });
});
