import { z } from 'zod';
import type { Core } from '../app-types.ts';
import { SYSTEM } from '../core/actor.ts';
import type { BridgeListing } from '../core/bridges/bridge-service.ts';
import { invalidInput } from '../core/errors.ts';
import { qualifiedName } from '../core/entities.ts';

/** What a command produced: data for `--json`, and lines for a person. */
export interface Output {
  data: Record<string, unknown>;
  text: string;
}

const list = z
  .string()
  .optional()
  .transform((s) =>
    s
      ? s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean)
      : undefined,
  );
const role = <T extends string>(values: readonly [T, ...T[]], what: string) =>
  z.enum(values, { message: `${what} must be one of: ${values.join(', ')}` });

/** Parses command arguments with zod, turning problems into one INVALID_INPUT sentence. */
export function args<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw invalidInput(
      r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; '),
    );
  return r.data;
}

/** A command over the core: its arguments as parsed, its output for a person and for `--json`. */
export type Command = (core: Core, raw: Record<string, unknown>) => Promise<Output>;

/**
 * The CLI commands that act on data, through the core's services. They run in the CLI process, or inside a
 * running server when the CLI routes them over the control socket (PGlite).
 */
export const commands: Record<string, Command> = {
  async init(core, raw) {
    const a = args(
      z.object({
        org: z.string().min(1),
        admin: z.string().min(1),
        email: z.string().email().optional(),
        name: z.string().optional(),
      }),
      raw,
    );
    const { org, admin, signin } = await core.orgs.init({
      org: a.org,
      admin: a.admin,
      email: a.email,
      displayName: a.name,
    });
    const url = `${core.config.publicUrl}${signin.path}`;
    return {
      data: {
        org: { id: org.id, slug: org.slug, name: org.name, plan: org.plan },
        admin: { id: admin.id, handle: admin.handle },
        signin_url: url,
        expires_at: signin.expiresAt,
      },
      text: `Created organization ${org.name} (${org.slug}) with admin @${admin.handle}.\nSign in once at: ${url}`,
    };
  },

  async 'person add'(core, raw) {
    const a = args(
      z.object({
        handle: z.string(),
        org: z.string().optional(),
        role: role(['admin', 'member'], 'role').optional(),
        email: z.string().email().optional(),
        name: z.string().optional(),
        invite: z.boolean().optional(),
      }),
      raw,
    );
    const r = await core.orgs.putPerson(SYSTEM, {
      handle: a.handle,
      org: a.org,
      role: a.role,
      email: a.email,
      displayName: a.name,
      invite: a.invite,
    });
    const { person } = r;
    const invite = r.signin ? `${core.config.publicUrl}${r.signin.path}` : undefined;
    const where = r.org?.slug ?? '';
    const done = r.created
      ? `Added @${person.handle}${r.org ? ` to ${where} as ${r.role}` : ''}.`
      : !r.org
        ? `@${person.handle} already exists; here is a new sign-in link for them.`
        : !r.previousRole
          ? `Added @${person.handle}, who already had an account, to ${where} as ${r.role}.`
          : r.previousRole !== r.role
            ? `Changed @${person.handle}'s role in ${where} from ${r.previousRole} to ${r.role}.`
            : `@${person.handle} is already in ${where} as ${r.role}; nothing changed.`;
    const kept =
      !r.created && (a.name !== undefined || a.email !== undefined)
        ? ' Their name and e-mail stay as they were (--name and --email apply only to new people).'
        : '';
    const link = invite
      ? `\nSign-in link: ${invite}${r.hasPassword ? ` (@${person.handle}'s password keeps working too)` : ''}`
      : '';
    return {
      data: {
        person: { id: person.id, handle: person.handle, display_name: person.displayName, email: person.email },
        created: r.created,
        org: r.org?.slug ?? null,
        role: r.role,
        previous_role: r.previousRole,
        ...(invite ? { signin_url: invite } : {}),
      },
      text: `${done}${kept}${link}`,
    };
  },

  async 'person list'(core, raw) {
    const a = args(z.object({ org: z.string().min(1).optional() }), raw);
    const rows = await core.orgs.listPeople(SYSTEM, a.org);
    const people = rows.map((r) => ({
      handle: r.person.handle,
      display_name: r.person.displayName,
      email: r.person.email,
      ...(a.org ? { role: r.role, seat: r.hasSeat } : {}),
    }));
    const line = (p: (typeof people)[number]) =>
      `@${p.handle}  ${p.display_name}${p.email ? ` <${p.email}>` : ''}${a.org ? `  ${p.role}${p.seat ? ', seat' : ''}` : ''}`;
    return {
      data: { people },
      text: people.length ? people.map(line).join('\n') : `Nobody${a.org ? ` in ${a.org}` : ''} yet.`,
    };
  },

  async 'person remove'(core, raw) {
    const a = args(z.object({ handle: z.string().min(1), org: z.string().min(1) }), raw);
    const r = await core.orgs.removePerson(SYSTEM, a.org, a.handle);
    return {
      data: { org: r.org.slug, handle: r.person.handle, removed: true },
      text: `Removed @${r.person.handle} from ${r.org.slug}, with their roles in its workspaces and their agents' places there. Their account and what they wrote stay.`,
    };
  },

  async 'workspace list'(core, raw) {
    const a = args(z.object({ org: z.string().min(1).optional() }), raw);
    const list = await core.orgs.listWorkspaces(SYSTEM, a.org);
    const workspaces = list.map((w) => ({ slug: w.slug, name: w.name, kind: w.kind, restricted: w.restricted }));
    return {
      data: { workspaces },
      text: workspaces.length
        ? workspaces.map((w) => `${w.slug}  ${w.name} (${w.kind}${w.restricted ? ', restricted' : ''})`).join('\n')
        : 'No workspaces yet.',
    };
  },

  async 'workspace remove'(core, raw) {
    const a = args(z.object({ workspace: z.string().min(1), yes: z.boolean().optional() }), raw);
    const ws = await core.orgs.removeWorkspace(SYSTEM, a.workspace, Boolean(a.yes));
    return {
      data: { workspace: ws.slug, removed: true },
      text: `Removed the workspace ${ws.slug} and everything in it.`,
    };
  },

  async 'workspace add'(core, raw) {
    const a = args(
      z.object({
        name: z.string().min(1),
        org: z.string(),
        simplified: z.boolean().optional(),
        restricted: z.boolean().optional(),
      }),
      raw,
    );
    const ws = await core.orgs.addWorkspace(SYSTEM, a);
    return {
      data: { workspace: { id: ws.id, slug: ws.slug, name: ws.name, kind: ws.kind, restricted: ws.restricted } },
      text: `Created workspace ${ws.name} (${ws.slug}, ${ws.kind}${ws.restricted ? ', restricted' : ''}).`,
    };
  },

  async 'workspace linking'(core, raw) {
    const a = args(z.object({ workspace: z.string().min(1), mode: role(['required', 'optional'], 'the mode') }), raw);
    const ws = await core.links.setRequired(SYSTEM, a.workspace, a.mode === 'required');
    return {
      data: { workspace: ws.slug, require_linking: ws.requireLinking },
      text: ws.requireLinking
        ? `Agents in ${ws.slug} now hear only people who linked their chat account; others get a link to do so.`
        : `Agents in ${ws.slug} now hear everyone; people who have not linked their chat account talk to them as guests.`,
    };
  },

  async 'member add'(core, raw) {
    const a = args(
      z.object({ workspace: z.string(), handle: z.string(), role: role(['owner', 'editor', 'viewer'], '--role') }),
      raw,
    );
    const r = await core.orgs.addWorkspaceMember(SYSTEM, a.workspace, a.handle, a.role);
    return {
      data: { workspace: r.workspace.slug, handle: r.person.handle, role: r.role },
      text: `@${r.person.handle} is now ${r.role} of ${r.workspace.slug}.`,
    };
  },

  async 'seat grant'(core, raw) {
    return seat(core, raw, true);
  },
  async 'seat revoke'(core, raw) {
    return seat(core, raw, false);
  },

  async 'plan set'(core, raw) {
    // The limit is stored in a 32-bit integer column: a larger number would fail in the database, not here with a sentence.
    const messages = z.coerce
      .number()
      .int()
      .positive()
      .max(
        2_147_483_647,
        '--messages can be at most 2147483647 (the largest monthly message limit Switchboard can store); give a smaller number.',
      );
    const a = args(
      z.object({ org: z.string(), plan: role(['free', 'team'], 'plan'), messages: messages.optional() }),
      raw,
    );
    const r = await core.orgs.setPlan(SYSTEM, a.org, a.plan, a.messages);
    const l = r.limits;
    return {
      data: {
        org: r.org.slug,
        plan: l.name,
        messages_per_month: l.messagesPerMonth,
        agents: l.agents,
        workspaces: Number.isFinite(l.workspaces) ? l.workspaces : null,
        history_days: l.historyDays,
      },
      text: `${r.org.slug} is on the ${l.name} plan: ${l.messagesPerMonth} messages a month, ${l.agents} agents, ${Number.isFinite(l.workspaces) ? l.workspaces : 'unlimited'} workspaces, ${l.historyDays} days of history.`,
    };
  },

  async 'agent add'(core, raw) {
    const a = args(
      z.object({
        name: z.string(),
        owner: z.string(),
        displayName: z.string().optional(),
        avatarUrl: z.string().optional(),
        role: z.string().optional(),
      }),
      raw,
    );
    const { agent, token } = await core.agents.add(SYSTEM, {
      name: a.name,
      owner: a.owner,
      displayName: a.displayName,
      avatarUrl: a.avatarUrl,
      roleLine: a.role,
    });
    return {
      data: { agent: { id: agent.id, name: qualifiedName(agent), display_name: agent.displayName }, token },
      text: `Created agent ${qualifiedName(agent)}.\nIts token (shown once, store it now): ${token}`,
    };
  },

  async 'agent join'(core, raw) {
    const a = args(
      z.object({
        agent: z.string(),
        workspace: z.string(),
        send: z.boolean().default(true),
        receive: z.boolean().default(true),
        canMessage: list,
        takesFrom: list,
        monitor: z.boolean().optional(),
      }),
      raw,
    );
    const r = await core.agents.join(SYSTEM, a);
    const m = r.membership;
    return {
      data: {
        agent: qualifiedName(r.agent),
        workspace: r.workspace.slug,
        send: m.send,
        receive: m.receive,
        can_message: a.canMessage ?? [],
        takes_messages_from: a.takesFrom ?? [],
        monitor: m.monitor,
      },
      text: `${qualifiedName(r.agent)} joined ${r.workspace.slug} (send: ${m.send ? 'yes' : 'no'}, receive: ${m.receive ? 'yes' : 'no'}${m.monitor ? ', monitor' : ''}).`,
    };
  },

  async 'agent list'(core, raw) {
    const a = args(z.object({ owner: z.string().min(1).optional() }), raw);
    const agents = (await core.agents.list(a.owner))
      .filter((x) => x.kind === 'agent')
      .map((x) => ({
        name: qualifiedName(x),
        display_name: x.displayName,
        role: x.roleLine,
        token: x.hasToken ? 'valid' : 'none (removed)',
      }));
    return {
      data: { agents },
      text: agents.length
        ? agents
            .map(
              (x) =>
                `${x.name}  ${x.display_name}${x.role ? ` — ${x.role}` : ''}${x.token === 'valid' ? '' : '  (removed)'}`,
            )
            .join('\n')
        : 'No agents yet.',
    };
  },

  async 'agent remove'(core, raw) {
    const a = args(z.object({ agent: z.string().min(1) }), raw);
    const agent = await core.agents.remove(SYSTEM, a.agent);
    return {
      data: { agent: qualifiedName(agent), removed: true },
      text: `Removed ${qualifiedName(agent)}: its token no longer works and it left every workspace. Its messages stay in history.`,
    };
  },

  async 'agent rotate-token'(core, raw) {
    const a = args(z.object({ agent: z.string() }), raw);
    const { agent, token } = await core.agents.rotateToken(SYSTEM, a.agent);
    return {
      data: { agent: qualifiedName(agent), token },
      text: `New token for ${qualifiedName(agent)} (the old one no longer works): ${token}`,
    };
  },

  async 'bridge add'(core, raw) {
    const a = args(
      z.object({
        workspace: z.string().min(1),
        channel: z.string().min(1),
        slack: z.string().min(1).optional(),
        teams: z.string().min(1).optional(),
        allowPrivate: z.boolean().optional(),
      }),
      raw,
    );
    const to = (['slack', 'teams'] as const).flatMap((surface) =>
      a[surface] ? [{ surface, channel: a[surface] }] : [],
    );
    if (!to.length)
      throw invalidInput(
        'Say which channel to bridge to: --slack with a Slack channel id (C…) or --teams with a Teams channel id (19:…).',
      );
    const made = await core.bridges.add(SYSTEM, {
      workspace: a.workspace,
      channel: a.channel,
      to,
      allowPrivate: a.allowPrivate,
    });
    return {
      data: { bridges: made.map(bridgeJson) },
      text: made
        .map(
          (b) =>
            `Bridged #${b.channelName} with the ${b.label} channel ${b.title || b.externalChannelId} (bridge ${b.id}); messages, replies, edits, deletes and reactions now mirror both ways.`,
        )
        .join('\n'),
    };
  },

  async 'bridge list'(core, raw) {
    const a = args(z.object({ workspace: z.string().min(1) }), raw);
    const list = await core.bridges.list(SYSTEM, a.workspace);
    return {
      data: { bridges: list.map(bridgeJson) },
      text: list.length
        ? list
            .map(
              (b) =>
                `${b.id}  #${b.channelName} ↔ ${b.label} ${b.title ? `${b.title} ` : ''}(${b.externalChannelId})${b.allowPrivate ? '  private content allowed' : ''}`,
            )
            .join('\n')
        : 'No bridged channels in this workspace.',
    };
  },

  async 'bridge remove'(core, raw) {
    const a = args(z.object({ workspace: z.string().min(1), bridge: z.string().min(1) }), raw);
    const b = await core.bridges.remove(SYSTEM, a.workspace, a.bridge);
    return {
      data: { bridge: bridgeJson(b), removed: true },
      text: `Removed the bridge between #${b.channelName} and the ${b.label} channel ${b.title || b.externalChannelId}; messages already mirrored stay on both sides.`,
    };
  },
};

function bridgeJson(b: BridgeListing) {
  return {
    id: b.id,
    channel: b.channelName,
    surface: b.surface,
    tenant_id: b.tenantId,
    external_channel_id: b.externalChannelId,
    title: b.title,
    allow_private: b.allowPrivate,
    created_at: b.createdAt,
  };
}

async function seat(core: Core, raw: Record<string, unknown>, grant: boolean): Promise<Output> {
  const a = args(z.object({ handle: z.string(), org: z.string() }), raw);
  const r = await core.orgs.setSeat(SYSTEM, a.org, a.handle, grant);
  return {
    data: { org: r.org.slug, handle: r.person.handle, seat: grant },
    text: `@${r.person.handle} ${grant ? 'now holds' : 'no longer holds'} a seat in ${r.org.slug}.`,
  };
}
