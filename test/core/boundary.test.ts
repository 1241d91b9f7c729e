import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const FORBIDDEN =
  /^(express|drizzle-orm|postgres|@electric-sql\/pglite|bullmq|ioredis|@slack\/|botbuilder|@modelcontextprotocol\/|pino)/;
const root = path.resolve(import.meta.dirname, '../../src/core');
const src = path.resolve(root, '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier a file imports, statically or dynamically. */
const importsOf = (src: string) =>
  [...src.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]);

/** The file without its comments (block comments and whole-line `//` ones). */
const code = (f: string) =>
  readFileSync(f, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

describe('the domain core', () => {
  it('imports no SDK, web framework, ORM or driver', () => {
    const offenders = files(root).flatMap((f) =>
      importsOf(readFileSync(f, 'utf8'))
        .filter((s) => FORBIDDEN.test(s))
        .map((s) => `${path.relative(root, f)} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('imports nothing from outside src/core except node built-ins', () => {
    const offenders = files(root).flatMap((f) =>
      importsOf(readFileSync(f, 'utf8'))
        .filter((s) => s.startsWith('.') && !path.resolve(path.dirname(f), s).startsWith(root))
        .map((s) => `${path.relative(root, f)} → ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('names no surface in listening and intake: each surface registers its channels and post job', () => {
    const named = (src: string) => [...src.matchAll(/(['"`])(slack|teams|web|mcp)\1/g)].map((m) => m[0]);
    expect(named("if (c.surface === 'slack') return `teams`;")).toEqual(["'slack'", '`teams`']);
    const offenders = ['listening', 'intake']
      .flatMap((d) => files(path.join(root, d)))
      .flatMap((f) => named(code(f)).map((s) => `${path.relative(root, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it('names no chat app and no slash command anywhere: labels, wordings and hints come from what each surface registers', () => {
    // Words, not identifiers: `SlackInstallationRepo` is a port's name, 'slack' or "Slack" in a sentence is not.
    const named = (src: string) => [...src.matchAll(/\b(slack|teams|microsoft)\b|\/switchboard\b/gi)].map((m) => m[0]);
    expect(
      named("const VIA = { slack: 'Slack', teams: 'Teams' }; say('In Microsoft Teams, write /switchboard link');"),
    ).toEqual(['slack', 'Slack', 'teams', 'Teams', 'Microsoft', 'Teams', '/switchboard']);
    expect(named('export interface SlackInstallationRepo { teamsOf(): string[] }')).toEqual([]);
    const offenders = files(root).flatMap((f) => named(code(f)).map((s) => `${path.relative(root, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it('catches a forbidden import when one is present (the check itself works)', () => {
    expect(
      importsOf(`import { App } from '@slack/bolt';\nconst x = await import('drizzle-orm');`).filter((s) =>
        FORBIDDEN.test(s),
      ),
    ).toEqual(['@slack/bolt', 'drizzle-orm']);
  });
});

describe('errors across src', () => {
  it('are told apart by type, code or details, never by matching their text (a surface changes a hint with withHint)', () => {
    const textMatch =
      /\.(message|reason|hint)\s*\.\s*(match|replace|replaceAll|includes|startsWith|endsWith|search)\s*\(|\.test\(\s*[\w.]*\.(message|reason|hint)\b|\.test\(\s*`[^`]*\$\{[\w.]*\.(message|reason|hint)\}/g;
    const found = (s: string) => [...s.matchAll(textMatch)].map((m) => m[0]);
    expect(
      found(
        "if (/^Failed to decode/.test(e.message)) x(); e.message.match(/hint/); err.hint.replace('a', 'b'); /fetch failed/.test(`${e.message} x`);",
      ),
    ).toHaveLength(4);
    expect(found("if (e instanceof URIError || e.details.rule === 'not_linked') e.withHint(h).message;")).toEqual([]);
    const offenders = files(src).flatMap((f) => found(code(f)).map((s) => `${path.relative(src, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });
});
