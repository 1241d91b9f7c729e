import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const FORBIDDEN = /^(express|drizzle-orm|postgres|@electric-sql\/pglite|bullmq|ioredis|@slack\/|botbuilder|@modelcontextprotocol\/|pino)/;
const root = path.resolve(import.meta.dirname, '../../src/domain');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier a file imports, statically or dynamically. */
const importsOf = (src: string) =>
  [...src.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)].map((m) => m[1]);

describe('the domain core', () => {
  it('imports no SDK, web framework, ORM or driver', () => {
    const offenders = files(root).flatMap((f) =>
      importsOf(readFileSync(f, 'utf8')).filter((s) => FORBIDDEN.test(s)).map((s) => `${path.relative(root, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it('imports nothing from outside src/domain except node built-ins', () => {
    const offenders = files(root).flatMap((f) =>
      importsOf(readFileSync(f, 'utf8'))
        .filter((s) => s.startsWith('.') && !path.resolve(path.dirname(f), s).startsWith(root))
        .map((s) => `${path.relative(root, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it('names no surface in listening and intake: each surface registers its channels and post job', () => {
    const code = (f: string) => readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    const named = (src: string) => [...src.matchAll(/(['"`])(slack|teams|web|mcp)\1/g)].map((m) => m[0]);
    expect(named("if (c.surface === 'slack') return `teams`;")).toEqual(["'slack'", '`teams`']);
    const offenders = ['listening', 'intake'].flatMap((d) => files(path.join(root, d)))
      .flatMap((f) => named(code(f)).map((s) => `${path.relative(root, f)} → ${s}`));
    expect(offenders).toEqual([]);
  });

  it('catches a forbidden import when one is present (the check itself works)', () => {
    expect(importsOf(`import { App } from '@slack/bolt';\nconst x = await import('drizzle-orm');`).filter((s) => FORBIDDEN.test(s)))
      .toEqual(['@slack/bolt', 'drizzle-orm']);
  });
});
