// `npm run teams:package`: the zipped Teams app package with the manifest
// filled in from the environment and both icons at the sizes Teams requires.
import { unzipSync } from 'fflate';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MANIFEST_DIR, teamsAppPackage, writeTeamsAppPackage } from '../../../src/adapters/teams/app-package.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Uint8Array) => {
  const b = Buffer.from(png);
  expect(b.subarray(1, 4).toString('ascii')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
};

describe('the Teams app package', () => {
  it('zips manifest.json with the bot\'s app id and public address, and both icons at their sizes', () => {
    const files = unzipSync(teamsAppPackage({ appId: TEAMS_DEFAULTS.appId.toUpperCase(), publicUrl: 'https://switchboard.example.com' }));
    expect(Object.keys(files).sort()).toEqual(['color.png', 'manifest.json', 'outline.png']);
    const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'));
    expect(manifest).toMatchObject({
      manifestVersion: '1.17', id: TEAMS_DEFAULTS.appId,
      icons: { color: 'color.png', outline: 'outline.png' },
      bots: [{ botId: TEAMS_DEFAULTS.appId, scopes: ['personal', 'team', 'groupChat'] }],
      developer: { websiteUrl: 'https://switchboard.example.com' },
      validDomains: ['switchboard.example.com'],
    });
    expect(JSON.stringify(manifest)).not.toContain('${{');
    expect(pngSize(files['color.png']!)).toEqual([192, 192]);
    expect(pngSize(files['outline.png']!)).toEqual([32, 32]);
  });

  it('keeps the outline icon white on transparent, as Teams requires', () => {
    const png = readFileSync(path.join(MANIFEST_DIR, 'outline.png'));
    // RGBA, 8 bits per channel, one IDAT chunk right after IHDR (as make-icons.ts writes it), rows unfiltered.
    expect([png[24], png[25]]).toEqual([8, 6]);
    const idat = png.subarray(41, 41 + png.readUInt32BE(33));
    const raw = inflateSync(idat);
    const colours = new Set<string>();
    let opaque = 0;
    for (let y = 0; y < 32; y += 1) {
      for (let x = 0; x < 32; x += 1) {
        const o = y * (32 * 4 + 1) + 1 + x * 4;
        if (raw[o + 3] === 0) continue;
        opaque += 1;
        colours.add(`${raw[o]},${raw[o + 1]},${raw[o + 2]}`);
      }
    }
    expect([...colours]).toEqual(['255,255,255']);
    expect(opaque).toBeGreaterThan(100);
  });

  it('refuses to package without an app id GUID or an https public address, saying what to set', () => {
    expect(() => teamsAppPackage({ appId: undefined, publicUrl: 'https://x.example' })).toThrow(/MICROSOFT_APP_ID is not set/);
    expect(() => teamsAppPackage({ appId: 'my-bot', publicUrl: 'https://x.example' })).toThrow(/Application \(client\) ID/);
    expect(() => teamsAppPackage({ appId: TEAMS_DEFAULTS.appId, publicUrl: 'http://localhost:3000' })).toThrow(/PUBLIC_URL must be the https address/);
  });

  it('writes the package where asked, from the environment', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-teams-package-'));
    try {
      const out = writeTeamsAppPackage({ MICROSOFT_APP_ID: TEAMS_DEFAULTS.appId, MICROSOFT_APP_PASSWORD: 'x', PUBLIC_URL: 'https://sb.example.org' }, path.join(dir, 'app.zip'));
      expect(Object.keys(unzipSync(readFileSync(out)))).toContain('manifest.json');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
