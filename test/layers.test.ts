// The layers of src, as the tree shows them (docs/contributing/architecture.md):
// core ← surfaces, mcp ← http, cli, composition root; infra implements the
// core's ports. A surface is one module over the surface contract: it never
// holds the App, the store or the database, and never another surface.
// Relative imports are read from the source (static, type-only and dynamic).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const SPECIFIER = /(?:^\s*(?:import|export)\b[^'"]*?\bfrom\s+|\bimport\(\s*)'(\.{1,2}\/[^']+)'/gm;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import of `text` (a file at `file`, relative to src), as a path relative to src. */
export function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])),
  );
}

const under = (dir: string) => (p: string) => p === dir || p.startsWith(`${dir}/`);
const surfaceOf = (p: string) => /^surfaces\/([^/]+)\//.exec(p)?.[1] ?? null;
/** Files every surface shares: the contract, the registry and shared helpers (not a surface of their own). */
const SHARED = new Set(['shared', 'contract.ts', 'registry.ts']);

/** Why `from` may not import `to` (both relative to src), or null when it may. */
export function brokenRule(from: string, to: string): string | null {
  if (to.startsWith('../')) return 'imports from outside src';
  if (under('core')(from) && !under('core')(to)) return 'the core imports nothing outside src/core';
  const surface = surfaceOf(from);
  if (under('surfaces')(from)) {
    if (to === 'app.ts' || to === 'app-types.ts' || to === 'server.ts') return 'a surface never holds the App';
    if (under('infra/db')(to) || under('infra/queue')(to)) return 'a surface reaches storage only through core ports';
    if (under('mcp')(to) || under('cli')(to)) return 'a surface does not import another entry point';
    const other = surfaceOf(to);
    if (surface && !SHARED.has(surface) && other && other !== surface && !SHARED.has(other))
      return 'a surface does not import another surface';
    if (under('http')(to) && !['http/html.ts', 'http/layout.ts', 'http/input.ts', 'http/message-html.ts'].includes(to))
      return 'a surface uses only the shared page helpers of src/http';
  }
  if (under('infra')(from) && (under('mcp')(to) || under('cli')(to) || under('http')(to) || to === 'app.ts'))
    return 'infra implements ports; it does not import entry points';
  if (under('infra')(from) && under('surfaces')(to) && !/^surfaces\/[^/]+\/[\w-]+-repo\.ts$/.test(to))
    return "infra reads only a surface's repository declarations (its *-repo.ts)";
  if (under('mcp')(from) && (under('cli')(to) || under('infra/db')(to) || under('surfaces')(to)))
    return 'MCP is an entry point over the core';
  if (under('demo')(from) && !under('demo')(to) && to.startsWith('..')) return 'the demo ships inside src';
  return null;
}

describe('the layers of src', () => {
  it('are kept by every import', () => {
    const broken = sources(SRC).flatMap((full) => {
      const file = path.relative(SRC, full).split(path.sep).join('/');
      return importsOf(file, readFileSync(full, 'utf8')).flatMap((to) => {
        const rule = brokenRule(file, to);
        return rule ? [`${file} → ${to}: ${rule}`] : [];
      });
    });
    expect(broken).toEqual([]);
  });

  it('catch each kind of crossing (the check itself works)', () => {
    expect(brokenRule('core/x.ts', 'infra/db/client.ts')).toMatch(/core/);
    expect(brokenRule('surfaces/slack/a.ts', 'app-types.ts')).toMatch(/App/);
    expect(brokenRule('surfaces/slack/a.ts', 'infra/db/store.ts')).toMatch(/storage/);
    expect(brokenRule('surfaces/slack/a.ts', 'surfaces/teams/b.ts')).toMatch(/another surface/);
    expect(brokenRule('surfaces/slack/a.ts', 'surfaces/contract.ts')).toBeNull();
    expect(brokenRule('surfaces/slack/oauth.ts', 'http/layout.ts')).toBeNull();
    expect(brokenRule('surfaces/web/a.ts', 'http/auth/index.ts')).toMatch(/page helpers/);
    expect(brokenRule('surfaces/web/events.ts', 'infra/db/pg-notifier.ts')).toMatch(/storage/);
    expect(brokenRule('mcp/stdio.ts', 'cli/control-client.ts')).toMatch(/entry point/);
    expect(brokenRule('mcp/stdio.ts', 'infra/db/lock.ts')).toMatch(/entry point/);
    expect(brokenRule('demo/index.ts', '../examples/demo-agent.ts')).toMatch(/outside src/);
    expect(brokenRule('infra/db/slack-repo.ts', 'surfaces/slack/installation-repo.ts')).toBeNull();
    expect(brokenRule('infra/db/x.ts', 'surfaces/slack/index.ts')).toMatch(/repository declarations/);
    expect(importsOf('surfaces/slack/a.ts', "import type { App } from '../../app-types.ts';")).toEqual([
      'app-types.ts',
    ]);
  });
});
