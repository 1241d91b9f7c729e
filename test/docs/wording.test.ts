import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Words that name a round of development rather than what changed: a reader of the code or the docs cannot look
 * them up. Name a change by what it does, and date a figure. A bare `#418` stays allowed: it is how people write a
 * ticket in the product's own examples (`look at #418`), as are colours (`#000`) and channels (`#general`).
 */
const ROUND_WORDS: Array<[string, RegExp]> = [
  ['session <n>', /\bsessions?[ -]\d+\b/gi],
  ['issue <n>', /\bissues? #?\d+\b/gi],
  ['wave <n>', /\bwaves?[ -]#?\d+\b/gi],
  ['a pull request by number', /\b(?:PRs?|pull requests?) #\d+\b/gi],
  [
    '#<n> as a reference',
    /(?:\(#\d+\)|\[#\d+\]|\b(?:see|fixes|fixed|closes|closed|resolves|resolved|refs?|per) #\d+\b)/gi,
  ],
];

/** Every line of `text` that has one of the words, as `file:line: what (the words)`. */
export function roundWords(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      ROUND_WORDS.flatMap(([what, re]) => [...line.matchAll(re)].map((m) => `${file}:${i + 1}: ${what} ("${m[0]}")`)),
    );
}

const CHECKED = /\.(md|ts|mjs|yaml|yml|json)$/;

/** The project's text files: tracked, or new and not ignored. */
function projectFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\n'))].filter(
    (f) => CHECKED.test(f) && path.basename(f) !== 'package-lock.json' && existsSync(path.join(ROOT, f)),
  );
}

describe('the wording of the project', () => {
  it('finds the words it looks for, and leaves tickets, colours, headings, fragments and channels alone', () => {
    const [s, n] = ['session', 12];
    const flagged = [
      `measured in ${s} ${n}`,
      `(${s}-${n})`,
      `see issue ${n}`,
      `its target (issue #${n})`,
      `wave ${n} fixes`,
      `Please review PR #${n}`,
      `reworded (#${n})`,
      `fixes #${n}`,
    ];
    for (const line of flagged) expect(roundWords('x.md', line), line).toHaveLength(1);
    const allowed = [
      '@reviewer please look at #418',
      'Deploy #418 to production',
      "canvas.fillStyle = '#000'; color: #1d1c1d;",
      '## 2. Point the client at the endpoint',
      '[Reliability](#receiving-from-chat-apps)',
      'post in #general and #ops-2',
      'an MCP session opens; sessions end',
      'median of 5 rounds',
    ];
    for (const line of allowed) expect(roundWords('x.md', line), line).toEqual([]);
  });

  it('names changes by what they do and dates figures, with no development-round words', () => {
    const found = projectFiles().flatMap((f) => roundWords(f, readFileSync(path.join(ROOT, f), 'utf8')));
    expect(found, 'reword these: name the change by what it does, date the figure').toEqual([]);
  });
});
