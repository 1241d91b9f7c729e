// `npm run bench [name…]`: runs every bench/*.bench.ts (or the named ones) and prints their figures.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(dir).filter(
  (f) => f.endsWith('.bench.ts') && (!wanted.length || wanted.some((w) => f.startsWith(w))),
);
for (const f of files.sort()) {
  console.log(`\n== ${f} ==`);
  const mod = (await import(pathToFileURL(path.join(dir, f)).href)) as { default: () => Promise<void> };
  await mod.default();
}
process.exit(0);
