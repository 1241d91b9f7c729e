import { z } from 'zod';
import type { App } from '../app.ts';
import { slackRuntime } from '../app-surfaces.ts';
import { args, type Output } from './commands.ts';

/**
 * The commands that connect a chat app's team or tenant to a workspace. They reach what only a surface keeps (its
 * installations, its tenants), which the composition root built, so they take the App rather than the core.
 */
export const surfaceCommands: Record<string, (app: App, raw: Record<string, unknown>) => Promise<Output>> = {
  async 'slack connect'(app, raw) {
    const a = args(
      z.object({ workspace: z.string().min(1), teamId: z.string().min(1), botToken: z.string().optional() }),
      raw,
    );
    // Loaded here so other commands never load the Slack SDK.
    const { connectSlackTeam } = await import('../surfaces/slack/connect.ts');
    const r = await connectSlackTeam(slackRuntime(app), a);
    const i = r.installation;
    const source = {
      given: 'its bot token is stored encrypted',
      stored: 'it uses the bot token of the OAuth install',
      environment: 'it uses SLACK_BOT_TOKEN',
    }[r.token];
    return {
      data: {
        workspace: r.workspace.slug,
        team_id: i.teamId,
        team_name: i.teamName,
        bot_user_id: i.botUserId,
        token: r.token,
      },
      text: `Connected the Slack team ${i.teamName || i.teamId} (${i.teamId}) to the workspace ${r.workspace.slug}; ${source}.`,
    };
  },

  async 'teams connect'(app, raw) {
    const a = args(z.object({ workspace: z.string().min(1), tenantId: z.string().min(1) }), raw);
    // Loaded here so other commands never load the Teams SDK.
    const { connectTeamsTenant } = await import('../surfaces/teams/connect.ts');
    const r = await connectTeamsTenant({ orgs: app.orgs, tenants: app.store.tenants }, a);
    return {
      data: { workspace: r.workspace.slug, tenant_id: r.tenantId },
      text: `Connected the Microsoft Teams tenant ${r.tenantId} to the workspace ${r.workspace.slug}; mention Switchboard in Teams and name an agent.`,
    };
  },

  async 'email connect'(app, raw) {
    const a = args(z.object({ workspace: z.string().min(1), default: z.boolean().optional() }), raw);
    // Loaded here so other commands never load the mail libraries.
    const { connectEmailWorkspace } = await import('../surfaces/email/connect.ts');
    const r = await connectEmailWorkspace(
      { orgs: app.orgs, tenants: app.store.tenants },
      {
        workspace: a.workspace,
        asDefault: a.default,
      },
    );
    const domain = app.config.email.domain;
    const slug = r.workspace.slug;
    const where = domain
      ? `write to ${slug}+AGENT@${domain}${r.isDefault ? ` or AGENT@${domain}` : ''}`
      : 'set EMAIL_DOMAIN so mail can reach it';
    return {
      data: { workspace: slug, default: r.isDefault, domain: domain ?? null },
      text: `The workspace ${slug} takes mail${r.isDefault ? ", and is the domain's default" : ''}: ${where}.`,
    };
  },

  async 'email disconnect'(app, raw) {
    const a = args(z.object({ workspace: z.string().min(1) }), raw);
    const { disconnectEmailWorkspace } = await import('../surfaces/email/connect.ts');
    const r = await disconnectEmailWorkspace({ orgs: app.orgs, tenants: app.store.tenants }, a);
    return {
      data: { workspace: r.workspace.slug },
      text: `The workspace ${r.workspace.slug} takes no more mail; its email conversations stay.`,
    };
  },
};
