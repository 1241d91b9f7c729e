// The web chat's side of the one inbound pipeline (src/core/surfaces): a
// signed-in person writes as their person agent in a workspace they reach, so
// the workspace is the tenant, the author is a person (never a guest), and
// there is nothing to link. Posting goes through InboundService.deliverKnown,
// which routes and delivers the same way as for Slack and Teams.
import type { ChannelService } from '../../core/channels/channel-service.ts';
import { conversationLink } from '../../core/previews/links.ts';
import type { OrgService } from '../../core/organizations/org-service.ts';
import type { Clock } from '../../core/ports.ts';
import type { SurfacePort } from '../../core/surfaces/inbound.ts';
import { WEB_CHAT, type Workspace } from '../../core/entities.ts';

/** People's names change in the web app itself; a profile read a minute ago is fresh enough. */
const PROFILE_TTL_MS = 60_000;

export interface WebPortDeps {
  orgs: Pick<OrgService, 'findPerson'>;
  channels: Pick<ChannelService, 'messageIn' | 'conversationIn'>;
  clock: Clock;
  publicUrl: string;
}

/** The web chat's SurfacePort for one workspace: its tenant is that workspace, its authors are person ids. */
export function webPort(deps: WebPortDeps, workspace: Workspace): SurfacePort {
  const { orgs, channels, clock, publicUrl } = deps;
  return {
    surface: WEB_CHAT,
    label: 'web chat',
    profileTtlMs: PROFILE_TTL_MS,
    workspaceOf: async (tenantId) => (tenantId === workspace.id ? workspace : null),
    async profile(personId) {
      const person = await orgs.findPerson(personId).catch(() => null);
      return person && { displayName: person.displayName, email: person.email, fetchedAt: clock.now() };
    },
    // A signed-in person is linked by signing in; there is no prompt to send.
    sendLinkPrompt: async () => false,
    async permalink(messageId) {
      const m = await channels.messageIn(workspace.id, messageId).catch(() => null);
      const conv = m && (await channels.conversationIn(workspace.id, m.conversationId).catch(() => null));
      return conv ? conversationLink(publicUrl, workspace, conv) : null;
    },
    showName: (name) => `@${name.replace(/^@/, '')}`,
    linkHowTo: (justSent) =>
      justSent ? 'Open the sign-in link you were sent' : 'Ask an admin of your organization for a sign-in link',
  };
}
