// `npm run teams:package`: the Teams app package (manifest.json with the bot's
// app id and this server's public address filled in, plus the two icons),
// zipped for "Upload a custom app" in Teams or the Teams admin center.
import { zipSync } from 'fflate';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ConfigError, parseEnvironment } from '../../config.ts';

/** Where the manifest template and icons live. */
export const MANIFEST_DIR = fileURLToPath(new URL('../../../manifests/teams/', import.meta.url));

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the package is built from; privacy and terms default to PUBLIC_URL. */
export interface PackageInput {
  appId?: string;
  publicUrl: string;
  privacyUrl?: string;
  termsUrl?: string;
}

const PackageSchema = z.object({
  appId: z
    .string({
      message: "MICROSOFT_APP_ID is not set; use the Application (client) ID of the bot's Entra ID app registration.",
    })
    .regex(
      GUID,
      "MICROSOFT_APP_ID must be the Application (client) ID of the bot's app registration, a GUID such as 5f2d6a1c-0b7e-4c39-9a51-2e8f3d4c6b70.",
    ),
  publicUrl: z
    .string()
    .regex(
      /^https:\/\/[^/]+/,
      'PUBLIC_URL must be the https address where Teams reaches this server (e.g. https://switchboard.example.com); Teams does not accept http.',
    ),
  privacyUrl: z
    .string()
    .regex(/^https:\/\//, 'TEAMS_PRIVACY_URL must be an https address.')
    .optional(),
  termsUrl: z
    .string()
    .regex(/^https:\/\//, 'TEAMS_TERMS_URL must be an https address.')
    .optional(),
});

/** Fills `${{NAME}}` placeholders; a placeholder without a value is an error, never left in. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\$\{\{([A-Z_]+)\}\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new ConfigError(`The Teams manifest uses \${{${name}}}, which the packager does not know.`);
    // Values land inside JSON strings.
    return JSON.stringify(value).slice(1, -1);
  });
}

/** The manifest with the app id and public address filled in, parsed. */
export function teamsManifest(input: PackageInput, dir = MANIFEST_DIR): Record<string, unknown> {
  const parsed = PackageSchema.safeParse(input);
  if (!parsed.success)
    throw new ConfigError(
      `Cannot build the Teams app package:\n${parsed.error.issues.map((i) => `- ${i.message}`).join('\n')}`,
    );
  const { appId, publicUrl, privacyUrl = publicUrl, termsUrl = publicUrl } = parsed.data;
  const template = readFileSync(path.join(dir, 'manifest.json'), 'utf8');
  return JSON.parse(
    fillTemplate(template, {
      MICROSOFT_APP_ID: appId.toLowerCase(),
      PUBLIC_URL: publicUrl,
      PUBLIC_HOST: new URL(publicUrl).host,
      PRIVACY_URL: privacyUrl,
      TERMS_URL: termsUrl,
    }),
  ) as Record<string, unknown>;
}

/** The zipped app package: manifest.json, color.png and outline.png at the root, as Teams wants them. */
export function teamsAppPackage(input: PackageInput, dir = MANIFEST_DIR): Uint8Array {
  const manifest = teamsManifest(input, dir);
  return zipSync(
    {
      'manifest.json': new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`),
      'color.png': readFileSync(path.join(dir, 'color.png')),
      'outline.png': readFileSync(path.join(dir, 'outline.png')),
    },
    { level: 9, mtime: new Date('2020-01-01T00:00:00Z') },
  );
}

/**
 * Writes the package to `out` (default dist/switchboard-teams.zip) from the
 * environment; returns the path. Only the settings the manifest holds are
 * read, so it can be built where the app password is not (e.g. a laptop).
 */
export function writeTeamsAppPackage(
  env: NodeJS.ProcessEnv = process.env,
  out = path.resolve('dist', 'switchboard-teams.zip'),
): string {
  const e = parseEnvironment(env);
  const zip = teamsAppPackage({
    appId: e.MICROSOFT_APP_ID,
    publicUrl: (e.PUBLIC_URL ?? '').replace(/\/$/, ''),
    privacyUrl: e.TEAMS_PRIVACY_URL,
    termsUrl: e.TEAMS_TERMS_URL,
  });
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, zip);
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const at = process.argv.indexOf('--out');
  try {
    const out = writeTeamsAppPackage(
      process.env,
      at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]!) : undefined,
    );
    console.log(
      `Wrote the Teams app package to ${out}. Upload it in Teams (Apps → Manage your apps → Upload an app) or in the Teams admin center.`,
    );
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : e);
    process.exitCode = 1;
  }
}
