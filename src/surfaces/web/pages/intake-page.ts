// The web chat's intake page: the items of a workspace a person may see, with
// their source messages and counts. An item is as private as its most private
// source: it is shown only when the viewer could read every message it came
// from, so intake never carries a restricted channel or a DM to a wider audience.
import type { AgentService } from '../../../core/agents/agent-service.ts';
import type { Viewer } from '../../../core/channels/access.ts';
import type { ChannelService } from '../../../core/channels/channel-service.ts';
import type { IntakeService } from '../../../core/intake/intake-service.ts';
import type { IntakeItem, IntakeKind, IntakeSource, IntakeStatus } from '../../../core/intake/intake-item.ts';
import type { ListenPlaces } from '../../../core/listening/place.ts';
import type { Conversation } from '../../../core/messaging/message.ts';
import { httpUrlOrNull } from '../../../core/safe-text.ts';
import type { ExternalIdentityRepo } from '../../../core/surfaces/surface-ports.ts';
import type { SurfaceName } from '../../../core/entities.ts';
import type { IntakeItemView, IntakeListing } from './views.ts';

export type { IntakeItemView, IntakeListing, IntakeSourceView } from './views.ts';

/** How many of the newest items the page considers (filters and counts apply within them). */
export const INTAKE_PAGE_ITEMS = 500;

export interface IntakePageFilter {
  status?: IntakeStatus;
  kind?: IntakeKind;
  surface?: SurfaceName;
}

export class IntakePage {
  constructor(
    private readonly channels: ChannelService,
    private readonly intake: IntakeService,
    private readonly agents: AgentService,
    private readonly identities: Pick<ExternalIdentityRepo, 'get'>,
    /** How chat surfaces name their channels (a DM or group chat is no channel). */
    private readonly places: ListenPlaces,
  ) {}

  /** Where a source was written ("Slack"; null for the web chat and agents). */
  private via(surface: SurfaceName) {
    return this.channels.via(surface);
  }

  async list(v: Viewer, f: IntakePageFilter): Promise<IntakeListing> {
    const items = await this.intake.list(v.workspace, { limit: INTAKE_PAGE_ITEMS });
    const seen = new Map<string, Promise<Conversation | null>>();
    const readable = (s: IntakeSource) => {
      let p = seen.get(s.conversationId);
      if (!p) seen.set(s.conversationId, (p = this.readable(v, s.conversationId)));
      return p;
    };
    const visible: Array<IntakeItem & { sources: Array<IntakeSource & { conversation: Conversation }> }> = [];
    for (const item of items) {
      const convs = await Promise.all(item.sources.map(readable));
      if (convs.every(Boolean))
        visible.push({ ...item, sources: item.sources.map((s, i) => ({ ...s, conversation: convs[i]! })) });
    }
    const counts = {
      total: visible.length,
      bySource: {} as Record<string, number>,
      byStatus: {} as Record<string, number>,
    };
    for (const i of visible) {
      counts.byStatus[i.status] = (counts.byStatus[i.status] ?? 0) + 1;
      for (const s of new Set(i.sources.map((x) => x.surface))) counts.bySource[s] = (counts.bySource[s] ?? 0) + 1;
    }
    const shown = visible.filter(
      (i) =>
        (!f.status || i.status === f.status) &&
        (!f.kind || i.kind === f.kind) &&
        (!f.surface || i.sources.some((s) => s.surface === f.surface)),
    );
    return { items: await Promise.all(shown.map((i) => this.view(v, i))), counts };
  }

  /**
   * The source's conversation when the viewer may read it: by the web chat's
   * rules (an open channel, a restricted one they are in, a DM or thread they
   * take part in), or — for owners — a channel of a connected chat app, whose
   * messages owners already route (bridges, listening agents). Null otherwise.
   */
  private async readable(v: Viewer, conversationId: string): Promise<Conversation | null> {
    const c = await this.channels.conversationIn(v.workspace.id, conversationId);
    if (!c) return null;
    if (await this.channels.access.canSee(v, c)) return c;
    const outsideChannel = c.kind === 'external' && this.places.of(c, null) !== null;
    return outsideChannel && v.role === 'owner' ? c : null;
  }

  private async view(
    v: Viewer,
    i: IntakeItem & { sources: Array<IntakeSource & { conversation: Conversation }> },
  ): Promise<IntakeItemView> {
    return {
      id: i.id,
      title: i.title,
      kind: i.kind,
      status: i.status,
      summary: i.summary,
      filedAutomatically: i.filedBy === null,
      createdAt: i.createdAt,
      updatedAt: i.updatedAt,
      sources: await Promise.all(
        i.sources.map(async (s) => {
          const outside = this.via(s.conversation.surface);
          return {
            messageId: s.messageId,
            surface: s.surface,
            where: this.via(s.surface) ?? outside ?? 'Web chat',
            href: outside ? httpUrlOrNull(s.permalink) : webRoute(v, s.conversation),
            external: Boolean(outside),
            excerpt: s.excerpt,
            author: await this.authorName(s),
            notified: s.notifiedAt !== null,
          };
        }),
      ),
    };
  }

  private async authorName(s: IntakeSource): Promise<string> {
    if (s.authorIdentityId) return (await this.identities.get(s.authorIdentityId))?.displayName || 'Someone';
    return (s.authorAgentId && (await this.agents.get(s.authorAgentId))?.displayName) || 'Someone';
  }
}

/** The web chat's route to a conversation (a thread opens beside its channel). */
function webRoute(v: Viewer, c: Conversation): string {
  const path = c.kind === 'thread' && c.parentId ? `/c/${c.parentId}/t/${c.id}` : `/c/${c.id}`;
  return `#/w/${encodeURIComponent(v.workspace.slug)}${path}`;
}
