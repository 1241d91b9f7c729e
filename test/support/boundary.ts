// What a surface's boundary test reads: every relative import of the modules
// under a folder of src (static, re-export or dynamic), and those that reach
// outside the places the surface may use.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const SRC = path.resolve(import.meta.dirname, '../../src');

/** The .ts files under `dir`, at any depth. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative module specifier a file imports, statically or dynamically, as a path under src. */
export const localImportsOf = (file: string, text = readFileSync(file, 'utf8')) =>
  [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)].map((m) =>
    path.relative(SRC, path.resolve(path.dirname(file), m[1]!)),
  );

/** `file → import` for each import of the modules under `dir` (relative to src) not under one of `allowed`. */
export function importsOutside(dir: string, allowed: string[]): string[] {
  return sourceFiles(path.join(SRC, dir)).flatMap((f) =>
    localImportsOf(f)
      .filter((p) => !allowed.some((a) => p.startsWith(a)))
      .map((p) => `${path.relative(SRC, f)} → ${p}`),
  );
}
