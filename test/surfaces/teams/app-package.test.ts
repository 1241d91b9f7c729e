// `npm run teams:package`: the zipped Teams app package with the manifest
// filled in from the environment and both icons at the sizes Teams requires.
import { unzipSync } from 'fflate';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MANIFEST_DIR, teamsAppPackage, writeTeamsAppPackage } from '../../../src/surfaces/teams/app-package.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';

const run = promisify(execFile);

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Uint8Array) => {
  const b = Buffer.from(png);
  expect(b.subarray(1, 4).toString('ascii')).toBe('PNG');
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
};

describe('the Teams app package', () => {
  it("zips manifest.json with the bot's app id and public address, and both icons at their sizes", () => {
    const files = unzipSync(
      teamsAppPackage({ appId: TEAMS_DEFAULTS.appId.toUpperCase(), publicUrl: 'https://switchboard.example.com' }),
    );
    expect(Object.keys(files).sort()).toEqual(['color.png', 'manifest.json', 'outline.png']);
    const manifest = JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'));
    expect(manifest).toMatchObject({
      manifestVersion: '1.22',
      id: TEAMS_DEFAULTS.appId,
      icons: { color: 'color.png', outline: 'outline.png' },
      bots: [{ botId: TEAMS_DEFAULTS.appId, scopes: ['personal', 'team', 'groupChat'] }],
      developer: {
        websiteUrl: 'https://switchboard.example.com',
        privacyUrl: 'https://switchboard.example.com',
        termsOfUseUrl: 'https://switchboard.example.com',
      },
      validDomains: ['switchboard.example.com'],
      // Links to this server pasted in a message are previewed (composeExtension/queryLink).
      composeExtensions: [
        {
          botId: TEAMS_DEFAULTS.appId,
          messageHandlers: [{ type: 'link', value: { domains: ['switchboard.example.com'] } }],
        },
      ],
    });
    expect(JSON.stringify(manifest)).not.toContain('${{');
    // Resource-specific consent: the bot receives every message of the channels and group chats it is added to, not only mentions.
    expect(manifest.webApplicationInfo).toEqual({
      id: TEAMS_DEFAULTS.appId,
      resource: `api://switchboard.example.com/${TEAMS_DEFAULTS.appId}`,
    });
    expect(manifest.authorization.permissions.resourceSpecific).toEqual([
      { name: 'ChannelMessage.Read.Group', type: 'Application' },
      { name: 'ChatMessage.Read.Chat', type: 'Application' },
    ]);
    expect(manifest.$schema).toBe(
      `https://developer.microsoft.com/json-schemas/teams/v${manifest.manifestVersion}/MicrosoftTeams.schema.json`,
    );
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
    expect(() => teamsAppPackage({ appId: undefined, publicUrl: 'https://x.example' })).toThrow(
      /MICROSOFT_APP_ID is not set/,
    );
    expect(() => teamsAppPackage({ appId: 'my-bot', publicUrl: 'https://x.example' })).toThrow(
      /Application \(client\) ID/,
    );
    expect(() => teamsAppPackage({ appId: TEAMS_DEFAULTS.appId, publicUrl: 'http://localhost:3000' })).toThrow(
      /PUBLIC_URL must be the https address/,
    );
  });

  it('writes the package from the environment without the app password, with the privacy and terms addresses configured', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-teams-package-'));
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        MICROSOFT_APP_ID: TEAMS_DEFAULTS.appId,
        PUBLIC_URL: 'https://sb.example.org/',
        TEAMS_PRIVACY_URL: 'https://example.org/privacy',
        TEAMS_TERMS_URL: 'https://example.org/terms',
      };
      delete env.MICROSOFT_APP_PASSWORD;
      // As `npm run teams:package` runs it.
      const script = path.resolve(import.meta.dirname, '../../../src/surfaces/teams/app-package.ts');
      const out = path.join(dir, 'app.zip');
      const { stdout } = await run('node', ['--import', 'tsx', script, '--out', out], { env });
      expect(stdout).toContain(`Wrote the Teams app package to ${out}`);
      const manifest = JSON.parse(Buffer.from(unzipSync(readFileSync(out))['manifest.json']!).toString('utf8'));
      expect(manifest.developer).toEqual({
        name: 'Switchboard',
        websiteUrl: 'https://sb.example.org',
        privacyUrl: 'https://example.org/privacy',
        termsOfUseUrl: 'https://example.org/terms',
      });
      expect(() => writeTeamsAppPackage({ ...env, TEAMS_TERMS_URL: 'http://example.org/terms' }, out)).toThrow(
        /TEAMS_TERMS_URL must be the https address/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
