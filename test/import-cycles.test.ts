// No module of src imports itself back, through static, type-only or dynamic
// imports alike: a cycle makes load order matter (a value read before its
// module finished loading is undefined) and ties layers that should not know
// each other. Relative specifiers are read from the source; packages are leaves.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const SPECIFIER = /(?:^\s*(?:import|export)\b[^'"]*?\bfrom\s+|\bimport\(\s*)'(\.{1,2}\/[^']+)'/gm;

// The browser bundle (esbuild) is its own program, never loaded by the server.
const BROWSER = path.join(SRC, 'surfaces', 'web', 'client');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (full === BROWSER) return [];
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

/** Every cycle found by a depth-first walk, each as the files along it. */
export function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    trail.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === 'open') cycles.push([...trail.slice(trail.indexOf(dep)), dep]);
      else if (!state.has(dep)) visit(dep);
    }
    trail.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return cycles;
}

describe('imports in src', () => {
  it('form no cycle', () => {
    const graph = new Map(
      sources(SRC).map((file) => [
        file,
        [...readFileSync(file, 'utf8').matchAll(SPECIFIER)].map((m) => path.resolve(path.dirname(file), m[1]!)),
      ]),
    );
    expect(graph.size).toBeGreaterThan(100);
    const cycles = findCycles(graph).map((c) => c.map((f) => path.relative(SRC, f)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('are read the way the check expects: a cycle through a dynamic or type-only import counts', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycles(graph)).toEqual([['a', 'b', 'c', 'a']]);
    const text =
      "import type { X } from './x.ts';\nconst y = await import('../y.ts');\nexport { z } from './z.ts';\nimport 'pkg';";
    expect([...text.matchAll(SPECIFIER)].map((m) => m[1])).toEqual(['./x.ts', '../y.ts', './z.ts']);
  });
});
