import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientBundle } from '../../../src/surfaces/web/bundle.ts';

const CLIENT = path.resolve(import.meta.dirname, '../../../src/surfaces/web/client');

describe("the chat's browser bundle", () => {
  it('bundles every client module into one script with no imports left, once per process', async () => {
    const first = clientBundle();
    expect(clientBundle()).toBe(first);
    const js = await first;
    expect(js).not.toMatch(/^\s*(import|export)\s/m);
    for (const file of readdirSync(CLIENT)) {
      // types.ts holds only types, which leave nothing behind.
      if (file !== 'types.ts') expect(js, file).toContain(`src/surfaces/web/client/${file}`);
    }
    // The view types come from the server's own module; none of its runtime code is shipped.
    expect(js).not.toContain('class SenderCache');
  });
});
