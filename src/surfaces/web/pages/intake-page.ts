// The web chat's intake page: the items of a workspace a person may see, with
// their source messages and counts. An item is as private as its most private
// source: it is shown only when the viewer could read every message it came
// from, so intake never carries a restricted channel or a DM to a wider audience.
import type { AgentService } from '../../../core/agents/agent-service.ts';
import type { Viewer } from '../../../core/channels/access.ts';
import type { ChannelService } from '../../../core/channels/channel-service.ts';
import { notFound, SwitchboardError } from '../../../core/errors.ts';
import type { IntakeDetail, IntakeService } from '../../../core/intake/intake-service.ts';
import type {
  IntakeItem,
  IntakeKind,
  IntakeNote,
  IntakeSource,
  IntakeStatus,
} from '../../../core/intake/intake-item.ts';
import { conversationRoute } from '../../../core/previews/links.ts';
import type { ListenPlaces } from '../../../core/listening/place.ts';
import type { Conversation } from '../../../core/messaging/message.ts';
import { httpUrlOrNull } from '../../../core/safe-text.ts';
import type { ExternalIdentityRepo } from '../../../core/surfaces/surface-ports.ts';
import type { SurfaceName } from '../../../core/entities.ts';
import type { IntakeItemView, IntakeListing } from './views.ts';

export type { IntakeItemView, IntakeListing, IntakeSourceView } from './views.ts';

/** How many of the newest items the page considers (filters and counts apply within them). */
export const INTAKE_PAGE_ITEMS = 500;

/** What a person is told of an item that does not exist or that they may not see (the two look the same). */
const notShown = (id: string) =>
  notFound(`The intake item ${id} in this workspace`, 'Reload the intake page to see the items there are now.');

/** An item whose every source the viewer may read, with each source's conversation. */
type Visible = IntakeItem & { sources: Array<IntakeSource & { conversation: Conversation }> };

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
    const readable = this.readableFor(v);
    const visible: Visible[] = [];
    for (const item of items) {
      const shown = await this.visible(item, readable);
      if (shown) visible.push(shown);
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
    const notes = await this.intake.notes(shown.map((i) => i.id));
    return {
      items: await Promise.all(
        shown.map((i) =>
          this.view(
            v,
            i,
            notes.filter((n) => n.itemId === i.id),
          ),
        ),
      ),
      counts,
    };
  }

  /**
   * Triage from the page: a new status and/or a note, as update_intake makes them (done tells the people who asked).
   * Whoever sees the item here may triage it: owners, and anyone who may read every message it came from.
   */
  async triage(v: Viewer, id: string, change: { status?: IntakeStatus; note?: string }) {
    await this.seen(v, id);
    const r = await this.intake.triage(v.agent, v.workspace, { id, ...change });
    return { item: await this.shown(v, r.item), told: r.told, previous: r.previous };
  }

  /** Merges the item `id` into `into`, the item it repeats (IntakeService.merge); the viewer must see both. */
  async merge(v: Viewer, id: string, into: string) {
    await Promise.all([this.seen(v, id), this.seen(v, into)]);
    const r = await this.intake.merge(v.agent, v.workspace, { duplicateId: id, intoId: into });
    return { item: await this.shown(v, r.item), told: r.told, moved: r.moved };
  }

  /** Refuses an item the viewer may not see here as one that does not exist: its existence does not leak. */
  private async seen(v: Viewer, id: string): Promise<void> {
    const item = await this.intake
      .detail(v.workspace, id)
      .catch((e: unknown) => (e instanceof SwitchboardError && e.code === 'NOT_FOUND' ? null : Promise.reject(e)));
    if (!item || !(await this.visible(item, this.readableFor(v)))) throw notShown(id);
  }

  /** An item as the page shows it after a change. */
  private async shown(v: Viewer, d: IntakeDetail): Promise<IntakeItemView> {
    const visible = await this.visible(d, this.readableFor(v));
    if (!visible) throw notShown(d.id);
    return this.view(v, visible, d.notes);
  }

  /** The item with each source's conversation when the viewer may read every one; null otherwise. */
  private async visible(
    item: IntakeItem & { sources: IntakeSource[] },
    readable: (s: IntakeSource) => Promise<Conversation | null>,
  ): Promise<Visible | null> {
    const convs = await Promise.all(item.sources.map(readable));
    if (!convs.every(Boolean)) return null;
    return { ...item, sources: item.sources.map((s, i) => ({ ...s, conversation: convs[i]! })) };
  }

  /** `readable` for one viewer, asked once per conversation. */
  private readableFor(v: Viewer) {
    const seen = new Map<string, Promise<Conversation | null>>();
    return (s: IntakeSource) => {
      let p = seen.get(s.conversationId);
      if (!p) seen.set(s.conversationId, (p = this.readable(v, s.conversationId)));
      return p;
    };
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

  private async view(v: Viewer, i: Visible, notes: IntakeNote[]): Promise<IntakeItemView> {
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
            href: outside ? httpUrlOrNull(s.permalink) : conversationRoute(v.workspace, s.conversation),
            external: Boolean(outside),
            excerpt: s.excerpt,
            author: await this.authorName(s),
            notified: s.notifiedAt !== null,
          };
        }),
      ),
      notes: await Promise.all(
        notes.map(async (n) => ({
          body: n.body,
          author: (n.authorAgentId && (await this.agents.get(n.authorAgentId))?.displayName) || 'Someone',
          at: n.createdAt,
        })),
      ),
    };
  }

  private async authorName(s: IntakeSource): Promise<string> {
    if (s.authorIdentityId) return (await this.identities.get(s.authorIdentityId))?.displayName || 'Someone';
    return (s.authorAgentId && (await this.agents.get(s.authorAgentId))?.displayName) || 'Someone';
  }
}
