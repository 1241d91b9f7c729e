// The Slack surface is built from its core (src/surfaces/contract.ts), never
// from the App: its modules import the core, the contract, what every surface
// shares, the config's types, the secret box's types and the pure page
// helpers, and nothing else of src (no App, no store, no database, no other
// surface).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../../../src');
const slack = path.join(src, 'surfaces', 'slack');

/** Where Slack's modules may import from, relative to src: a folder (ending in /) or a file. */
const ALLOWED = [
  'core/',
  'surfaces/slack/',
  'surfaces/shared/',
  'surfaces/contract.ts',
  'config.ts',
  'http/html.ts',
  'http/layout.ts',
  'http/input.ts',
];
/** Allowed for types only: the core hands the surface its secret box. */
const TYPES_ONLY = ['infra/secrets/'];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of a file (static, re-export or dynamic), with whether it brings in types only. */
const importsOf = (text: string) =>
  [
    ...text.matchAll(
      /^\s*(import|export)(\s+type)?\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'/gm,
    ),
  ].map((m) => ({ specifier: m[3] ?? m[4]!, typeOnly: Boolean(m[2]) }));

const under = (target: string, prefixes: string[]) =>
  prefixes.some((p) => (p.endsWith('/') ? target.startsWith(p) : target === p));

/** The imports of `text` (a file at `file`) that reach outside what the Slack surface may use. */
function offenders(file: string, text: string): string[] {
  return importsOf(text).flatMap(({ specifier, typeOnly }) => {
    const target = path
      .relative(src, path.resolve(path.dirname(file), specifier))
      .split(path.sep)
      .join('/');
    if (under(target, ALLOWED) || (typeOnly && under(target, TYPES_ONLY))) return [];
    return [`${path.relative(src, file)} → ${target}`];
  });
}

describe('the Slack surface', () => {
  it('imports only the core, the surface contract, shared surface code, config types, secret-box types and page helpers', () => {
    const found = files(slack).flatMap((f) => offenders(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('never reaches the App through the escape hatch', () => {
    const found = files(slack).filter((f) => /\blegacyAppOf\b|\bLEGACY_APP\b/.test(readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('catches what it must (the check itself works)', () => {
    const file = path.join(slack, 'x.ts');
    const text = [
      "import type { App } from '../../app-types.ts';",
      "import { createStore } from '../../infra/db/store.ts';",
      "import { createSecretBox } from '../../infra/secrets/secret-box.ts';",
      "import type { SecretBox } from '../../infra/secrets/secret-box.ts';",
      "export { teamsRuntime } from '../teams/runtime.ts';",
      "const web = await import('../web/index.ts');",
      "import { html } from '../../http/html.ts';",
      "import type { Mount } from '../../http/http.ts';",
      "import { PermanentFailure } from '../../core/errors.ts';",
    ].join('\n');
    expect(offenders(file, text)).toEqual([
      'surfaces/slack/x.ts → app-types.ts',
      'surfaces/slack/x.ts → infra/db/store.ts',
      'surfaces/slack/x.ts → infra/secrets/secret-box.ts',
      'surfaces/slack/x.ts → surfaces/teams/runtime.ts',
      'surfaces/slack/x.ts → surfaces/web/index.ts',
      'surfaces/slack/x.ts → http/http.ts',
    ]);
  });
});
