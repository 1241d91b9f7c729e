// The SDK configuration the Teams adapter builds from the environment, and
// that neither the app password nor a token ever reaches the logs.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, type BotFrameworkAuthentication } from 'botframework-connector';
import type { Activity } from 'botbuilder';
import {
  authenticationConfig,
  RefuseBadTokensWith401,
  unsignedTokenRefusal,
} from '../../../src/surfaces/teams/auth.ts';
import { teamsSettings } from '../../../src/surfaces/teams/settings.ts';
import type { Database } from '../../../src/infra/db/client.ts';
import { surfaceCommands } from '../../../src/cli/surface-commands.ts';
import { loadConfig } from '../../../src/config.ts';
import { pgliteDb } from '../../support/db.ts';
import { TEAMS_DEFAULTS } from '../../support/teams/defaults.ts';
import { startTeamsStandin, type TeamsStandin } from '../../support/teams/standin.ts';
import { mentionAndReceive, startHarness, type Harness } from '../../support/teams/harness.ts';

const env = { MICROSOFT_APP_ID: TEAMS_DEFAULTS.appId, MICROSOFT_APP_PASSWORD: 'app-secret-value' };

const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const jwt = (header: Record<string, unknown>) => `Bearer ${part(header)}.${part({ iss: 'x' })}.c2ln`;

describe("tokens that cannot be Bot Framework's", () => {
  it('are refused 401 from their header alone, before the SDK fetches any signing key (which could fail as an outage)', async () => {
    let asked = 0;
    const inner = {
      authenticateRequest: async () => {
        asked++;
        throw new Error('getaddrinfo ENOTFOUND login.botframework.com');
      },
    } as unknown as BotFrameworkAuthentication;
    const auth = new RefuseBadTokensWith401(inner);
    for (const header of [jwt({ alg: 'none' }), jwt({ alg: 'HS256', kid: 'k' }), jwt({ alg: 'RS256' }), 'Bearer x.y']) {
      const err = await auth.authenticateRequest({} as Activity, header).catch((e: unknown) => e);
      expect(err, header).toBeInstanceOf(AuthenticationError);
      expect((err as AuthenticationError).statusCode).toBe(401);
    }
    expect(asked).toBe(0);
    // A token that may be one goes to the SDK, whose outage stays an outage (answered 503 by the route).
    await expect(auth.authenticateRequest({} as Activity, jwt({ alg: 'RS256', kid: 'k1' }))).rejects.toThrow(
      /ENOTFOUND/,
    );
    expect(asked).toBe(1);
  });

  it('say why', () => {
    expect(unsignedTokenRefusal(jwt({ alg: 'none' }))).toMatch(/signed with "none"/);
    expect(unsignedTokenRefusal(jwt({ alg: 'HS256', kid: 'k' }))).toMatch(/signed with "HS256"/);
    expect(unsignedTokenRefusal(jwt({ alg: 'RS256' }))).toMatch(/names no signing key/);
    expect(unsignedTokenRefusal('Bearer %%%')).toMatch(/not a JWT/);
    expect(unsignedTokenRefusal(jwt({ alg: 'RS256', kid: 'k1' }))).toBeNull();
    expect(unsignedTokenRefusal('')).toBeNull();
  });
});

describe('Bot Framework authentication settings', () => {
  it('is multi-tenant without MICROSOFT_APP_TENANT_ID', () => {
    expect(authenticationConfig(teamsSettings(loadConfig(env)))).toEqual({
      MicrosoftAppId: TEAMS_DEFAULTS.appId,
      MicrosoftAppPassword: 'app-secret-value',
      MicrosoftAppType: 'MultiTenant',
      MicrosoftAppTenantId: '',
    });
  });

  it('is single-tenant with MICROSOFT_APP_TENANT_ID', () => {
    expect(
      authenticationConfig(teamsSettings(loadConfig({ ...env, MICROSOFT_APP_TENANT_ID: TEAMS_DEFAULTS.tenantId }))),
    ).toMatchObject({
      MicrosoftAppType: 'SingleTenant',
      MicrosoftAppTenantId: TEAMS_DEFAULTS.tenantId,
    });
  });

  it('points every Bot Framework endpoint at another cloud from the MICROSOFT_* settings, keeping public defaults for the unset ones', () => {
    const config = authenticationConfig(
      teamsSettings(
        loadConfig({
          ...env,
          MICROSOFT_TOKEN_ISSUER: 'https://api.botframework.us',
          MICROSOFT_OAUTH_SCOPE: 'https://api.botframework.us',
          MICROSOFT_OPENID_METADATA_URL: 'https://login.botframework.azure.us/v1/.well-known/openidconfiguration',
          MICROSOFT_LOGIN_URL: 'https://login.microsoftonline.us/',
        }),
      ),
    );
    expect(config).toMatchObject({
      ToBotFromChannelOpenIdMetadataUrl: 'https://login.botframework.azure.us/v1/.well-known/openidconfiguration',
      ToBotFromChannelTokenIssuer: 'https://api.botframework.us',
      ToBotFromEmulatorOpenIdMetadataUrl:
        'https://login.microsoftonline.com/common/v2.0/.well-known/openid-configuration',
      ToChannelFromBotLoginUrl: 'https://login.microsoftonline.us/botframework.com',
      ToChannelFromBotOAuthScope: 'https://api.botframework.us',
      CallerId: 'urn:botframework:azureusgov',
    });
  });

  it('refuses a plain-http endpoint anywhere but this machine', () => {
    expect(() => loadConfig({ ...env, MICROSOFT_LOGIN_URL: 'http://login.example.com' })).toThrow(
      /MICROSOFT_LOGIN_URL must be an https URL \(http is accepted only for 127\.0\.0\.1 or localhost\)/,
    );
    expect(() =>
      loadConfig({ ...env, MICROSOFT_OPENID_METADATA_URL: 'http://10.0.0.5/v1/.well-known/openidconfiguration' }),
    ).toThrow(/MICROSOFT_OPENID_METADATA_URL must be an https URL/);
    expect(loadConfig({ ...env, MICROSOFT_LOGIN_URL: 'http://127.0.0.1:4000/' }).teams.loginUrl).toBe(
      'http://127.0.0.1:4000',
    );
  });

  it('never builds a configuration without an app id (the SDK would accept every request unauthenticated)', () => {
    expect(() => authenticationConfig(teamsSettings(loadConfig({})))).toThrow(
      /MICROSOFT_APP_ID and MICROSOFT_APP_PASSWORD/,
    );
  });
});

describe('a single-tenant bot through the server', () => {
  let db: Database;
  let standin: TeamsStandin;
  let h: Harness;
  const lines: string[] = [];

  beforeAll(async () => {
    // A fresh app id: botframework-connector caches access tokens per app id for the whole process.
    [db, standin] = await Promise.all([
      pgliteDb.open(),
      startTeamsStandin({ appId: '7a1b2c3d-0000-4000-8000-00000000a001', tenantId: TEAMS_DEFAULTS.tenantId }),
    ]);
    h = await startHarness({ database: db, standin, logLines: lines });
  });
  afterAll(async () => {
    await h?.stop();
    await standin?.close();
    await db?.close();
  });

  it('connects another tenant to a workspace with `teams connect`, and refuses what is not a tenant id', async () => {
    const out = await surfaceCommands['teams connect']!(h.server.app, {
      workspace: 'eng',
      tenantId: '0B0E2C4D-1111-4222-8333-444455556666',
    });
    expect(out.data).toEqual({ workspace: 'eng', tenant_id: '0b0e2c4d-1111-4222-8333-444455556666' });
    await expect(
      surfaceCommands['teams connect']!(h.server.app, { workspace: 'eng', tenantId: 'contoso.onmicrosoft.com' }),
    ).rejects.toThrow(/not a Microsoft Entra tenant id/);
    await expect(
      surfaceCommands['teams connect']!(h.server.app, { workspace: 'nope', tenantId: TEAMS_DEFAULTS.tenantId }),
    ).rejects.toThrow(/workspace "nope"/);
  });

  it('gets its token from its own tenant, answers, and logs neither the password nor a token', async () => {
    const { item } = await mentionAndReceive(h, standin);
    standin.failNext('sendToConversation', { status: 502 });
    await h.server.app.messaging.send({
      workspace: h.workspace,
      sender: h.reviewer,
      conversationId: item.conversation.id,
      body: 'Single-tenant answer.',
    });
    await vi.waitFor(
      () =>
        expect(
          standin
            .delivered('sendToConversation')
            .some((c) => JSON.stringify(c.activity).includes('Single-tenant answer.')),
        ).toBe(true),
      { timeout: 10_000 },
    );

    expect(standin.tokenRequests.every((r) => r.tenant === TEAMS_DEFAULTS.tenantId && r.status === 200)).toBe(true);
    const log = lines.join('\n');
    expect(log).toContain('job failed; will retry');
    expect(log).not.toContain(standin.appPassword);
    expect(log).not.toMatch(/Bearer\s+ey/);
  });
});
