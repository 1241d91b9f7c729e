// Intake as agents and people use it: filing an item from messages, changing
// its status, notes and sources, listing and reading it; telling the people
// who asked when it is done (once per source, through the outbox); and filing
// unlinked people's requests automatically.
import type { AgentService } from '../agents/agent-service.ts';
import { invalidInput, notFound } from '../errors.ts';
import { answerPlace } from '../channels/thread-of.ts';
import { excerpt } from '../format/markdown.ts';
import { conversationTopic, inboxTopic } from '../messaging/messaging-service.ts';
import { postAsSystem, type PostTopicOf } from '../messaging/system-post.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import { GUEST_HANDLE, type OrgService } from '../organizations/org-service.ts';
import { conversationLink } from '../previews/links.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import { WEB_CHAT, type Agent, type Workspace } from '../entities.ts';
import type { ExternalIdentity } from '../surfaces/surface-ports.ts';
import { DELETED_EXCERPT } from '../surfaces/title.ts';
import { doneNotice, inferKind, looksLikeRequest, noticesAnswer, noticesHelp, titleFrom } from './rules.ts';
import type { IntakeFilter, IntakeItem, IntakeKind, IntakeNote, IntakeSource, IntakeStatus } from './intake-item.ts';
import { countItems, intakeReader, matchesFilter, seesItem, type IntakeReader } from './visibility.ts';

/** An item with its sources and notes, as tools and pages show it. */
export interface IntakeDetail extends IntakeItem {
  sources: IntakeSource[];
  notes: IntakeNote[];
}

type NewSource = Omit<IntakeSource, 'notifiedAt' | 'addedAt'>;

const MAX_SOURCES = 50;

/** How many of the newest items an agent that does not monitor the workspace is shown from (filters and counts apply within them). */
export const AGENT_INTAKE_ITEMS = 500;

/** How much of a message a source keeps (its excerpt). */
const SOURCE_EXCERPT_CHARS = 200;

/** What an automatic item made from a message deleted on its platform says in place of the person's words. */
const DELETED_REQUEST = {
  title: DELETED_EXCERPT,
  summary: 'The person deleted the message this request came from.',
} as const;

/**
 * Intake follows an edit or a delete its author made on the chat platform (`text` null: deleted), in the caller's
 * transaction: every source citing the message quotes the new text (or says it was deleted), and an automatic item
 * made from it whose summary is still the old text takes the new one (or says it was deleted). Items an agent filed
 * keep the title and summary the agent wrote.
 */
export async function followChatEdit(
  tx: Store,
  message: Pick<Message, 'workspaceId' | 'id' | 'body'>,
  text: string | null,
  at: Date,
): Promise<void> {
  await tx.intake.reexcerpt(
    message.workspaceId,
    message.id,
    text === null ? DELETED_EXCERPT : excerpt(text, SOURCE_EXCERPT_CHARS),
  );
  const next = text === null ? DELETED_REQUEST : { title: titleFrom(text), summary: text };
  await tx.intake.retitleAutomatic(message.workspaceId, message.id, message.body, next, at);
}

const missingItem = (id: string) =>
  notFound(`The intake item ${id} in this workspace`, 'Call list_intake for the ids.');
/** The same refusal, said to a person. */
const itemGone = (id: string) =>
  notFound(`The intake item ${id} in this workspace`, 'Reload the intake list to see the items there are now.');

export class IntakeService {
  constructor(
    private readonly store: Store,
    private readonly orgs: OrgService,
    private readonly agents: AgentService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    /** Where the web chat is served, for links to its messages. */
    private readonly publicUrl: string,
    /** The post job of each chat surface, for done notices in its threads. */
    private readonly postTopicOf: PostTopicOf,
    /** Wakes the outbox worker after notices were stored. */
    private readonly afterCommit: () => void = () => {},
  ) {}

  /** Files an item from messages the agent sent, received or overheard. */
  async file(
    agent: Agent,
    ws: Workspace,
    input: { title: string; kind: IntakeKind; summary: string; sourceIds: string[] },
  ): Promise<IntakeDetail> {
    const me = await this.agents.member(agent, ws);
    const sources = await this.sourcesFrom(agent, ws, input.sourceIds, me.permissions.monitor);
    const item = await this.store.transaction(async (tx) => {
      const created = await tx.intake.create(
        {
          workspaceId: ws.id,
          title: input.title.trim(),
          kind: input.kind,
          summary: input.summary.trim(),
          filedBy: agent.id,
        },
        this.clock.now(),
      );
      await tx.intake.addSources(sources.map((s) => ({ ...s, itemId: created.id })));
      return created;
    });
    return this.detail(ws, item.id);
  }

  /** Adds sources, a note, or a new status; becoming done tells the people who asked. */
  async update(
    agent: Agent,
    ws: Workspace,
    input: { id: string; addSourceIds?: string[]; status?: IntakeStatus; note?: string },
  ): Promise<{ item: IntakeDetail; told: number; previous: IntakeStatus }> {
    const me = await this.agents.member(agent, ws);
    if (!input.addSourceIds?.length && !input.status && !input.note?.trim()) {
      throw invalidInput('Nothing to change: give `status`, `note` or `add_source_message_ids`.');
    }
    const current = await this.store.intake.get(ws.id, input.id);
    // An item the agent may not read is refused as one that does not exist: neither its existence nor a change to it leaks.
    const sees = async (item: NonNullable<typeof current>) =>
      me.permissions.monitor ||
      seesItem(this.reader(agent, false), { ...item, sources: await this.store.intake.sources([item.id]) });
    if (!current || !(await sees(current))) {
      throw missingItem(input.id);
    }
    const sources = input.addSourceIds?.length
      ? await this.sourcesFrom(agent, ws, input.addSourceIds, me.permissions.monitor)
      : [];
    const r = await this.change(ws, current, { by: agent, sources, status: input.status, note: input.note });
    return { item: await this.detail(ws, current.id), ...r };
  }

  /**
   * A person's triage of an item (from the web intake page), written as their person agent `by`: a new status and/or
   * a note, under the rules of update_intake (becoming done tells the people who asked, once). Whoever may see the item
   * may triage it; the caller checks that, by its own rule of who sees what. Audited.
   */
  async triage(
    by: Agent,
    ws: Workspace,
    input: { id: string; status?: IntakeStatus; note?: string },
  ): Promise<{ item: IntakeDetail; told: number; previous: IntakeStatus }> {
    if (!input.status && !input.note?.trim()) throw invalidInput('Choose a new status or write a note, then save.');
    const current = await this.store.intake.get(ws.id, input.id);
    if (!current) throw itemGone(input.id);
    const r = await this.change(ws, current, { by, sources: [], status: input.status, note: input.note });
    await this.store.audit.record({
      workspaceId: ws.id,
      action: 'intake.update',
      target: current.id,
      result: 'updated',
      details: { by: by.ownerId, status: input.status ?? null, ...r, note: Boolean(input.note?.trim()) },
    });
    return { item: await this.detail(ws, current.id), ...r };
  }

  /**
   * Merges a duplicate into the item kept, as a person's triage (see `triage`; the caller checked they may see both):
   * the duplicate's sources join the kept item (with whether their authors were told; when the kept item is done,
   * the others are told now, as for sources update_intake adds to it), each item gets a note saying what happened,
   * and the duplicate becomes "won't do". Audited.
   */
  async merge(
    by: Agent,
    ws: Workspace,
    input: { duplicateId: string; intoId: string },
  ): Promise<{ item: IntakeDetail; told: number; moved: number }> {
    if (input.duplicateId === input.intoId)
      throw invalidInput('An item cannot be merged into itself; choose the item it repeats.');
    const [duplicate, kept] = await Promise.all([
      this.store.intake.get(ws.id, input.duplicateId),
      this.store.intake.get(ws.id, input.intoId),
    ]);
    if (!duplicate) throw itemGone(input.duplicateId);
    if (!kept) throw itemGone(input.intoId);
    // Its people were told it is live: calling it a duplicate now would take that back.
    if (duplicate.status === 'done')
      throw invalidInput(`“${duplicate.title}” is done already; merge the other item into it instead.`);
    const moving = await this.store.intake.sources([duplicate.id]);
    const now = this.clock.now();
    const { told } = await this.change(ws, kept, {
      by,
      sources: moving.map(({ notifiedAt: _n, addedAt: _a, ...s }) => s),
      note: `Merged “${duplicate.title}” into this item, with its ${moving.length === 1 ? 'source' : `${moving.length} sources`}.`,
      alsoInTx: async (tx) => {
        // Whoever was told about the duplicate is not told again about the item it joins.
        for (const s of moving) if (s.notifiedAt) await tx.intake.claimNotice(kept.id, s.messageId, now);
        await tx.intake.addNote(
          { itemId: duplicate.id, authorAgentId: by.id, body: `Duplicate of “${kept.title}”; merged into it.` },
          now,
        );
        await tx.intake.setStatus(ws.id, duplicate.id, "won't do", now);
      },
    });
    await this.store.audit.record({
      workspaceId: ws.id,
      action: 'intake.merge',
      target: kept.id,
      result: 'merged',
      details: { by: by.ownerId, duplicate: duplicate.id, sources: moving.length, told },
    });
    return { item: await this.detail(ws, kept.id), told, moved: moving.length };
  }

  /**
   * One change to an item, in one transaction: sources added, a note, a new status (and `alsoInTx`, after the
   * sources); becoming done, or sources added to an item already done, tells the people who asked.
   */
  private async change(
    ws: Workspace,
    current: IntakeItem,
    input: {
      by: Agent;
      sources: NewSource[];
      status?: IntakeStatus;
      note?: string;
      alsoInTx?: (tx: Store) => Promise<void>;
    },
  ): Promise<{ told: number; previous: IntakeStatus }> {
    const { sources, status } = input;
    const note = input.note?.trim();
    const now = this.clock.now();
    // Sources added to an item already done are told too: they asked for what is now live.
    const tells = status === 'done' || (current.status === 'done' && sources.length > 0);
    // Read before the transaction, as approvals do: on the embedded database a read outside an open transaction waits for it to end.
    const system = tells ? await this.orgs.systemAgent() : null;
    const places = tells
      ? await this.noticePlaces(ws, [...(await this.store.intake.sources([current.id])), ...sources])
      : null;
    const { previous, told } = await this.store.transaction(async (tx) => {
      await tx.intake.addSources(sources.map((s) => ({ ...s, itemId: current.id })));
      await input.alsoInTx?.(tx);
      if (note) await tx.intake.addNote({ itemId: current.id, authorAgentId: input.by.id, body: note }, now);
      const previous = status ? (await tx.intake.setStatus(ws.id, current.id, status, now))! : current.status;
      if (!status) await tx.intake.touch(current.id, now);
      const told = system && places ? await this.tellDone(tx, ws, current, system, places) : [];
      return { previous, told };
    });
    if (told.length) this.afterCommit();
    await this.wake(told);
    return { told: told.length, previous };
  }

  async list(ws: Workspace, f: IntakeFilter): Promise<Array<IntakeItem & { sources: IntakeSource[] }>> {
    const items = await this.store.intake.list(ws.id, f);
    const sources = await this.store.intake.sources(items.map((i) => i.id));
    return items.map((i) => ({ ...i, sources: sources.filter((s) => s.itemId === i.id) }));
  }

  /** The notes of these items, oldest first. */
  notes(itemIds: string[]): Promise<IntakeNote[]> {
    return this.store.intake.notes(itemIds);
  }

  async detail(ws: Workspace, id: string): Promise<IntakeDetail> {
    const item = await this.store.intake.get(ws.id, id);
    if (!item) throw missingItem(id);
    const [sources, notes] = await Promise.all([this.store.intake.sources([id]), this.store.intake.notes([id])]);
    return { ...item, sources, notes };
  }

  counts(ws: Workspace) {
    return this.store.intake.counts(ws.id);
  }

  /** How a member agent reads intake here (see visibility.ts); throws when it is not a member. */
  async readerFor(agent: Agent, ws: Workspace): Promise<IntakeReader> {
    return this.reader(agent, (await this.agents.member(agent, ws)).permissions.monitor);
  }

  /**
   * One page (`limit` from `offset`) of the items the reader may see, newest first and filtered, with counts of all
   * it may see (so counts reveal no hidden item); `truncated` when more match after it. A monitor's cover the whole
   * workspace; another agent's only the workspace's newest AGENT_INTAKE_ITEMS items (`capped` when it holds more).
   */
  async listFor(
    r: IntakeReader,
    ws: Workspace,
    f: IntakeFilter,
  ): Promise<{
    items: Array<IntakeItem & { sources: IntakeSource[] }>;
    counts: ReturnType<typeof countItems>;
    truncated: boolean;
    capped: boolean;
  }> {
    const offset = f.offset ?? 0;
    if (r.monitor) {
      const [page, counts] = await Promise.all([this.list(ws, { ...f, offset, limit: f.limit + 1 }), this.counts(ws)]);
      return { items: page.slice(0, f.limit), counts, truncated: page.length > f.limit, capped: false };
    }
    const newest = await this.list(ws, { limit: AGENT_INTAKE_ITEMS });
    await r.see(newest.flatMap((i) => i.sources.map((s) => s.messageId)));
    const seen = await Promise.all(newest.map((i) => seesItem(r, i)));
    const visible = newest.filter((_, k) => seen[k]);
    const matching = visible.filter((i) => matchesFilter(i, f));
    return {
      items: matching.slice(offset, offset + f.limit),
      counts: countItems(visible),
      truncated: matching.length > offset + f.limit,
      capped: newest.length === AGENT_INTAKE_ITEMS,
    };
  }

  /** One item, when the reader may see it; otherwise the same refusal as for an id that does not exist. */
  async detailFor(r: IntakeReader, ws: Workspace, id: string): Promise<IntakeDetail> {
    const d = await this.detail(ws, id);
    if (!(await seesItem(r, d))) throw missingItem(id);
    return d;
  }

  private reader(agent: Agent, monitor: boolean): IntakeReader {
    return intakeReader(agent.id, monitor, (a, ids) => this.store.messages.involvedIn(a, ids));
  }

  /** Opts a person (or an unlinked chat user) out of done notices, or back in. */
  async setNotices(subject: { personId: string } | { identityId: string }, on: boolean): Promise<void> {
    await this.store.intake.setOptOut(
      'personId' in subject ? `person:${subject.personId}` : `identity:${subject.identityId}`,
      !on,
    );
  }

  async noticesOn(subject: { personId: string } | { identityId: string }): Promise<boolean> {
    return !(await this.store.intake.optedOut([
      'personId' in subject ? `person:${subject.personId}` : `identity:${subject.identityId}`,
    ]));
  }

  /**
   * A chat user's `notices on|off` (`word`, as written after "notices"): a
   * linked person's choice holds for them on every surface, an unlinked one's
   * for that chat account. Returns the sentence to answer; `turnOn` is how to
   * say it on that surface (`/switchboard notices on`).
   */
  async noticesCommand(identity: ExternalIdentity, word: string, turnOn: { on: string; off: string }): Promise<string> {
    const wanted = word.trim().toLowerCase();
    if (wanted !== 'on' && wanted !== 'off') return noticesHelp(turnOn);
    await this.setNotices(
      identity.personId ? { personId: identity.personId } : { identityId: identity.id },
      wanted === 'on',
    );
    return noticesAnswer(wanted === 'on', turnOn);
  }

  /**
   * The automatic step for unlinked people: a message from a guest, addressed
   * to an agent, that reads like a request becomes an item (a later one in the
   * same thread is added to it). Never throws: intake must not stop delivery.
   */
  async fromGuestRequest(ws: Workspace, message: Message, conversation: Conversation): Promise<IntakeItem | null> {
    if (!looksLikeRequest(message.body)) return null;
    const source = await this.sourceOf(ws, message, conversation);
    return this.store.transaction(async (tx) => {
      const existing = await tx.intake.autoItemIn(ws.id, conversation.id);
      if (existing) {
        await tx.intake.addSources([{ ...source, itemId: existing.id }]);
        await tx.intake.touch(existing.id, this.clock.now());
        return existing;
      }
      const item = await tx.intake.create(
        {
          workspaceId: ws.id,
          title: titleFrom(message.body),
          kind: inferKind(message.body),
          summary: message.body,
          filedBy: null,
        },
        this.clock.now(),
      );
      await tx.intake.addSources([{ ...source, itemId: item.id }]);
      return item;
    });
  }

  /** Resolves message ids into sources; each must be a message the agent sent, received or overheard (any, with monitor). */
  private async sourcesFrom(agent: Agent, ws: Workspace, ids: string[], monitor: boolean): Promise<NewSource[]> {
    const unique = [...new Set(ids)];
    if (unique.length > MAX_SOURCES)
      throw invalidInput(
        `An item takes at most ${MAX_SOURCES} source messages at a time; you gave ${unique.length}. Pick the clearest ones.`,
      );
    const out: NewSource[] = [];
    for (const id of unique) {
      const m = await this.store.messages.get(ws.id, id);
      if (!m || !(monitor || (await this.store.messages.involves(agent.id, id)))) {
        throw notFound(
          `A message ${id} that you sent or received in this workspace`,
          'Use message ids from check_inbox, subscribe or search_messages.',
        );
      }
      const conv = (await this.store.messages.getConversation(ws.id, m.conversationId))!;
      out.push({ ...(await this.sourceOf(ws, m, conv)), itemId: '' });
    }
    return out;
  }

  private async sourceOf(ws: Workspace, m: Message, conv: Conversation): Promise<NewSource> {
    const sender = await this.store.agents.get(m.senderId);
    const isGuest = sender?.ownerHandle === GUEST_HANDLE;
    return {
      // A person's message counts where they wrote it; an agent's where its conversation is.
      itemId: '',
      messageId: m.id,
      workspaceId: ws.id,
      conversationId: conv.id,
      surface: sender?.kind === 'person' ? m.surface : conv.surface,
      permalink:
        m.permalink ?? (conv.surface === WEB_CHAT ? conversationLink(this.publicUrl, ws, conv) : conv.permalink),
      excerpt: excerpt(m.body, SOURCE_EXCERPT_CHARS),
      authorAgentId: m.senderId,
      authorPersonId: sender?.kind === 'person' && !isGuest ? sender.ownerId : null,
      authorIdentityId: m.askerIdentityId,
    };
  }

  /**
   * Where the notice of each source not yet told goes, by message id (answerPlace): the web thread of a message written
   * in Slack or Teams at the top of a bridged channel, so the asker reads it in their thread on their side. Found
   * before the notices' transaction, since a thread created in it would be announced before it exists.
   */
  private async noticePlaces(
    ws: Workspace,
    sources: Array<Pick<IntakeSource, 'messageId' | 'conversationId'> & { notifiedAt?: Date | null }>,
  ): Promise<Map<string, Conversation>> {
    const places = new Map<string, Conversation>();
    for (const s of sources) {
      if (s.notifiedAt || places.has(s.messageId)) continue;
      const [m, conv] = await Promise.all([
        this.store.messages.get(ws.id, s.messageId),
        this.store.messages.getConversation(ws.id, s.conversationId),
      ]);
      if (m && conv) places.set(m.id, await answerPlace(this.store, this.notifier, m, conv));
    }
    return places;
  }

  /**
   * Tells each person who asked, once, in the conversation where they asked (`places` when noticePlaces found one):
   * a chat surface's thread through its post job, a web conversation directly.
   * A source is claimed before its notice is written, in the same transaction,
   * so a notice goes out exactly once; one person with several sources is told once.
   */
  private async tellDone(
    tx: Store,
    ws: Workspace,
    item: IntakeItem,
    system: Agent,
    places: Map<string, Conversation>,
  ): Promise<Array<{ message: Message; inboxes: string[] }>> {
    const told = new Set<string>();
    const out: Array<{ message: Message; inboxes: string[] }> = [];
    for (const s of await tx.intake.sources([item.id])) {
      if (s.notifiedAt || !(await tx.intake.claimNotice(item.id, s.messageId, this.clock.now()))) continue;
      const subjects = [
        s.authorPersonId && `person:${s.authorPersonId}`,
        s.authorIdentityId && `identity:${s.authorIdentityId}`,
      ].filter((x): x is string => Boolean(x));
      // Agents are not told (they follow intake themselves); nor is anyone who opted out.
      if (!subjects.length || subjects.some((x) => told.has(x)) || (await tx.intake.optedOut(subjects))) continue;
      subjects.forEach((x) => told.add(x));
      const conv = places.get(s.messageId) ?? (await tx.messages.getConversation(ws.id, s.conversationId));
      if (!conv) continue;
      const name = s.authorIdentityId
        ? (await tx.identities.get(s.authorIdentityId))?.displayName
        : (await tx.people.get(s.authorPersonId!))?.displayName;
      const inboxes = conv.kind !== 'external' && s.authorAgentId ? [s.authorAgentId] : [];
      out.push({
        message: await postAsSystem(
          tx,
          ws,
          system,
          conv,
          doneNotice(name ?? null, item.title),
          this.clock.now(),
          this.postTopicOf,
          inboxes,
        ),
        inboxes,
      });
    }
    return out;
  }

  private async wake(told: Array<{ message: Message; inboxes: string[] }>) {
    await Promise.all(
      told.flatMap((t) => [
        this.notifier.publish(conversationTopic(t.message.conversationId), t.message.id),
        ...t.inboxes.map((id) => this.notifier.publish(inboxTopic(id), t.message.id)),
      ]),
    );
  }
}
