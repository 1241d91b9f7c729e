import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '../../src/config.ts';
import { configurationPage, generatedPages, TOOL_GROUPS } from '../../scripts/docs.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the generated reference pages', () => {
  it('are what npm run docs writes from the code today', async () => {
    for (const page of await generatedPages()) {
      const file = path.join(ROOT, page.path);
      const committed = existsSync(file) ? readFileSync(file, 'utf8') : '(missing)';
      expect(committed, `${page.path} differs from the code it is generated from: run npm run docs`).toBe(page.text);
    }
  });

  it('cover every tool group the MCP server registers', () => {
    // The one place read as text: which register functions buildMcpServer calls, so a new group cannot go unlisted.
    const server = readFileSync(path.join(ROOT, 'src/mcp/server.ts'), 'utf8');
    const registered = [...server.matchAll(/\b(register\w+Tools)\(server, ctx\)/g)].map((m) => m[1]);
    expect(registered.length).toBeGreaterThan(0);
    expect(
      TOOL_GROUPS.map((g) => g.register.name),
      'scripts/docs.ts lists the tool groups as src/mcp/server.ts registers them',
    ).toEqual(registered);
  });

  it('list every setting with a description', () => {
    const page = configurationPage();
    for (const name of SETTING_NAMES)
      expect(page).toMatch(new RegExp(`^\\| \`${name}\` \\|.+\\| [A-Z].{20,} \\|$`, 'm'));
  });
});
