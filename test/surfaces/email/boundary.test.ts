// The email surface is built on the surface contract alone: it reaches the core
// through SurfaceCore and its own tables through the state its factory gets,
// never the App, the store, the database or another surface.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../../../src');
const email = path.join(src, 'surfaces/email');

/** What an email module may import inside src: the core, the contract, what surfaces share, config types, page helpers. */
const ALLOWED = [
  'surfaces/email/',
  'core/',
  'surfaces/contract.ts',
  'surfaces/shared/',
  'config.ts',
  'http/html.ts',
  'http/layout.ts',
  'http/input.ts',
  'http/message-html.ts',
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative module specifier a file imports, statically or dynamically, as a path under src. */
const localImportsOf = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)].map((m) =>
    path.relative(src, path.resolve(path.dirname(file), m[1])),
  );

const offending = (file: string) => localImportsOf(file).filter((p) => !ALLOWED.some((a) => p.startsWith(a)));

describe('the email surface', () => {
  it('imports only the core, the surface contract, shared surface code, config types and page helpers', () => {
    const offenders = files(email).flatMap((f) => offending(f).map((p) => `${path.relative(src, f)} → ${p}`));
    expect(offenders).toEqual([]);
  });

  it('never reaches the App through the contract escape hatch', () => {
    const offenders = files(email).filter((f) => /\blegacyAppOf\b|\bLEGACY_APP\b/.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => path.relative(src, f))).toEqual([]);
  });

  it('catches an import from outside what it may use (the check itself works)', () => {
    const sample = path.join(email, 'sample.ts');
    const specs = ["'../../app-types.ts'", "'../../infra/db/store.ts'", "'../teams/index.ts'", "'../contract.ts'"];
    const resolved = specs.map((s) => path.relative(src, path.resolve(path.dirname(sample), s.slice(1, -1))));
    expect(resolved.filter((p) => !ALLOWED.some((a) => p.startsWith(a)))).toEqual([
      'app-types.ts',
      'infra/db/store.ts',
      'surfaces/teams/index.ts',
    ]);
  });
});
