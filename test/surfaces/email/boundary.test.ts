// The email surface is built on the surface contract alone: it reaches the core
// through SurfaceCore and its own table through the state its factory gets,
// never the App, the store, the database or another surface.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SRC, importsOutside, localImportsOf } from '../../support/boundary.ts';

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

describe('the email surface', () => {
  it('imports only the core, the surface contract, shared surface code, config types and page helpers', () => {
    expect(importsOutside('surfaces/email', ALLOWED)).toEqual([]);
  });

  it('catches an import from outside what it may use (the check itself works)', () => {
    const sample = path.join(SRC, 'surfaces/email/sample.ts');
    const text = ["'../../app-types.ts'", "'../../infra/db/store.ts'", "'../teams/index.ts'", "'../contract.ts'"]
      .map((s) => `import x from ${s};`)
      .join('\n');
    expect(localImportsOf(sample, text).filter((p) => !ALLOWED.some((a) => p.startsWith(a)))).toEqual([
      'app-types.ts',
      'infra/db/store.ts',
      'surfaces/teams/index.ts',
    ]);
  });
});
