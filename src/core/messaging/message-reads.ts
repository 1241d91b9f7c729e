// Reading messages: the inbox (taken, returned, waited for), unread counts,
// search within the plan's history, and the history purge, with the receive
// permission applied. MessagingService adds sending on top.
import { resolveOne, type AgentService } from '../agents/agent-service.ts';
import type { Agent, Workspace } from '../entities.ts';
import { notPermitted, SwitchboardError } from '../errors.ts';
import type { AudienceService } from '../linking/audience-service.ts';
import { historyCutoff, nextReset, planLimits } from '../organizations/plans.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import { waitForWake } from './inbox-wait.ts';
import type { InboxItem, SearchHit } from './message.ts';

/** Topic for waking whoever waits on an agent's inbox. */
export const inboxTopic = (agentId: string) => `inbox:${agentId}`;
/** Topic for live views of a conversation (web chat). */
export const conversationTopic = (conversationId: string) => `conversation:${conversationId}`;
/** Topic for whoever waits for a sender's next message in a conversation (stored, or begun as a stream): its status's holder. */
export const writerTopic = (senderId: string, conversationId: string) => `wrote:${senderId}:${conversationId}`;

/** The stretches of recent history a whole-workspace search ranks first, shortest first (see `search`). */
const SEARCH_WINDOWS_MS = [3_600_000, 86_400_000, 7 * 86_400_000];

/** What messaging asks of the audience rules (linking/audience-service.ts). */
export type MessageAudiences = Pick<AudienceService, 'annotate' | 'checkPost' | 'messagesRead'>;

/** Reading and searching messages, with the receive permission and the plan's history applied. */
export class MessageReads {
  constructor(
    protected readonly store: Store,
    protected readonly agents: AgentService,
    protected readonly notifier: Notifier,
    protected readonly clock: Clock,
    /** Inbox items carry their audience; what an agent reads counts against where it posts. */
    protected readonly audiences: MessageAudiences | null,
  ) {}

  /** Unread messages oldest first, marked read. */
  async checkInbox(agent: Agent, ws: Workspace, limit: number): Promise<{ items: InboxItem[]; remaining: number }> {
    await this.assertReceive(agent, ws);
    return this.withAudience(agent, ws, await this.store.messages.takeUnread(agent.id, ws.id, limit));
  }

  /**
   * Marks taken messages unread again: the answer that carried them never left (the request was cancelled, or its
   * connection closed, while the take ran). A subscribe of the agent's elsewhere is woken to take them.
   */
  async returnUnread(agent: Agent, ws: Workspace, messageIds: string[]): Promise<void> {
    if (await this.store.messages.returnUnread(agent.id, ws.id, messageIds))
      await this.notifier.publish(inboxTopic(agent.id), messageIds[0]);
  }

  protected async withAudience<T extends { items: InboxItem[] }>(agent: Agent, ws: Workspace, got: T): Promise<T> {
    return this.audiences ? { ...got, items: await this.audiences.annotate(agent, ws, got.items) } : got;
  }

  /**
   * Returns unread messages at once if there are any; otherwise waits until one
   * arrives (woken through the notifier, also from other processes) or the timeout.
   */
  async waitForInbox(agent: Agent, ws: Workspace, limit: number, timeoutMs: number, signal?: AbortSignal) {
    await this.assertReceive(agent, ws);
    return waitForWake({
      notifier: this.notifier,
      topic: inboxTopic(agent.id),
      timeoutMs,
      signal,
      take: () => this.store.messages.takeUnread(agent.id, ws.id, limit),
      found: (got) => got.items.length > 0,
    }).then(async ({ value, timedOut }) => ({ ...(await this.withAudience(agent, ws, value)), timedOut }));
  }

  /** Unread messages waiting for the agent (nothing is marked read). */
  async unreadCount(agent: Agent, ws: Workspace): Promise<number> {
    await this.assertReceive(agent, ws);
    return this.store.messages.unreadCount(agent.id, ws.id);
  }

  /** Unread messages counted apart: addressed to the agent, and overheard as a channel's listener. */
  async unreadCounts(agent: Agent, ws: Workspace): Promise<{ addressed: number; overheard: number }> {
    await this.assertReceive(agent, ws);
    return this.store.messages.unreadCounts(agent.id, ws.id);
  }

  /**
   * Full-text search over what the agent sent or received (everything, with monitor), within the plan's history; what
   * it read of restricted channels counts against where it posts, as a read from its inbox does.
   */
  async search(
    agent: Agent,
    ws: Workspace,
    q: { text: string; from?: string; conversationId?: string; since?: Date; limit: number },
  ): Promise<SearchHit[]> {
    const hits = await this.find(agent, ws, q);
    await this.audiences?.messagesRead(
      agent,
      ws,
      hits.map((h) => h.message.conversationId),
    );
    return hits;
  }

  private async find(
    agent: Agent,
    ws: Workspace,
    q: { text: string; from?: string; conversationId?: string; since?: Date; limit: number },
  ): Promise<SearchHit[]> {
    const me = await this.assertReceive(agent, ws);
    const org = (await this.store.orgs.get(ws.orgId))!;
    const cutoff = historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now());
    const since = q.since && q.since > cutoff ? q.since : cutoff;
    const from = q.from ? resolveOne(await this.agents.directory(ws), q.from).agent.id : undefined;
    if (q.conversationId && !(await this.store.messages.getConversation(ws.id, q.conversationId))) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `There is no conversation ${q.conversationId} in this workspace; leave \`conversation\` out to search them all.`,
      );
    }
    const query = {
      workspaceId: ws.id,
      text: q.text,
      agentId: me.permissions.monitor ? null : agent.id,
      fromAgentId: from,
      conversationId: q.conversationId,
      limit: q.limit,
    };
    if (!me.permissions.monitor) return this.store.messages.search({ ...query, since });
    // Ranking means reading every match, and a common word matches a large share of a busy
    // workspace, so a search of the whole workspace ranks the newest stretch of history that
    // holds a full page of matches (the last hour, day, week, else all of it).
    const now = this.clock.now().getTime();
    for (const ms of SEARCH_WINDOWS_MS) {
      const start = new Date(now - ms);
      if (start <= since) break;
      const hits = await this.store.messages.search({ ...query, since: start });
      if (hits.length >= q.limit) return hits;
    }
    return this.store.messages.search({ ...query, since });
  }

  protected async assertReceive(agent: Agent, ws: Workspace) {
    const me = await this.agents.member(agent, ws);
    if (!me.permissions.receive)
      throw notPermitted(
        'You do not have the receive permission in this workspace, so you cannot read messages; ask your owner to grant it.',
      );
    return me;
  }

  /** Deletes messages older than each organization's plan keeps. Returns how many went. */
  async purgeHistory(): Promise<number> {
    let n = 0;
    for (const org of await this.store.orgs.listAll()) {
      n += await this.store.messages.purgeOlderThan(
        org.id,
        historyCutoff(planLimits(org.plan, org.licensedMessages), this.clock.now()),
      );
    }
    return n;
  }

  /** When the month's message count resets (for refusals and the web app). */
  resetsAt() {
    return nextReset(this.clock.now());
  }
}
