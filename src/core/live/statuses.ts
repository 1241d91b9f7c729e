// An agent's status line in a conversation ("is thinking…"): shown on the
// conversation's chat platform when it has a place for one, and to the web
// chat always; cleared when the agent answers there, when its session ends,
// or after a while.
//
// A status is held by the process that took the call setting it. A client
// without a session (MCP 2026-07-28) may send its answer, or its next status,
// through another process sharing the database: the holder listens for both
// through the notifier while it holds the status. An answer stored anywhere
// clears it; a status set (or cleared) anywhere else replaces it, so the
// holder forgets it, and its timer with it, without touching what is shown.
import { randomUUID } from 'node:crypto';
import { isDeliveryError } from '../delivery/failure.ts';
import type { SurfaceOutbound } from '../delivery/surface-outbound.ts';
import { invalidInput } from '../errors.ts';
import type { MessagingService } from '../messaging/messaging-service.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import { writerTopic } from '../messaging/message-reads.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { Notifier } from '../process-ports.ts';
import type { LiveEvent } from './live-event.ts';

/** The longest status line. */
export const MAX_STATUS_CHARS = 150;

interface Status {
  /** Which status this is: what replaced it elsewhere is told by another id. */
  id: string;
  text: string;
  /** Whether the platform showed it; undefined until it answered. */
  platform?: boolean;
  conversation: Conversation;
  sender: Agent;
  timer: ReturnType<typeof setTimeout>;
  /** Stops listening for the answer and for a status set elsewhere. */
  stop: () => Promise<void>;
}

const statusKey = (agentId: string, conversationId: string) => `${agentId}:${conversationId}`;
/** Where a process that sets or clears a status tells the others, with the new status's id. */
const statusTopic = (agentId: string, conversationId: string) => `live-status:${agentId}:${conversationId}`;

/** Tells the web chat (the conversation's topic) what an agent shows. */
export type PublishLive = (
  conversation: Conversation,
  sender: Agent,
  e: Pick<LiveEvent, 'status' | 'stream'>,
) => Promise<void>;

/** The statuses agents connected to this process show. */
export class LiveStatuses {
  private readonly statuses = new Map<string, Status>();

  constructor(
    private readonly messaging: MessagingService,
    private readonly notifier: Notifier,
    private readonly publish: PublishLive,
    private readonly portFor: (surface: SurfaceName) => SurfaceOutbound | null,
    private readonly logger: { warn(facts: object, message: string): void },
    private readonly options: { statusTimeoutMs: number },
  ) {
    // An answer clears the status its sender showed in that conversation.
    messaging.onSent.push((m) => {
      void this.answered(m);
    });
  }

  /** LiveService.setStatus. */
  async set(
    ws: Workspace,
    sender: Agent,
    conversationId: string,
    text: string | null,
  ): Promise<{ conversation: Conversation; platform: boolean }> {
    const line = text?.trim() || null;
    if (line && line.length > MAX_STATUS_CHARS)
      throw invalidInput(
        `The status is ${line.length} characters; keep it under ${MAX_STATUS_CHARS}, e.g. "is reading the logs…".`,
      );
    const conversation = await this.messaging
      .preview({ workspace: ws, sender, conversationId })
      .then((p) => p.conversation);
    const key = statusKey(sender.id, conversation.id);
    const id = randomUUID();
    // Listening starts before the call is answered: the agent's answer may reach another process right after.
    const listening = line && !this.statuses.has(key) ? await this.listen(sender.id, conversation.id, key) : null;
    const earlier = this.statuses.get(key);
    if (earlier) clearTimeout(earlier.timer);
    if (earlier && listening) await listening();
    // The same status again only restarts its timeout: the platform is not asked twice.
    const again = earlier?.text === line && earlier?.platform !== undefined;
    if (line) {
      const timer = setTimeout(() => {
        // Only the status this timer was set for: a newer one has its own.
        if (this.statuses.get(key)?.id === id) void this.clearKey(key);
      }, this.options.statusTimeoutMs);
      timer.unref?.();
      this.statuses.set(key, {
        id,
        text: line,
        conversation,
        sender,
        timer,
        stop: earlier?.stop ?? listening!,
        platform: again ? earlier!.platform : undefined,
      });
      if (again) return { conversation, platform: earlier!.platform! };
    } else if (earlier) {
      this.statuses.delete(key);
      await earlier.stop();
    }
    // A process holding an earlier status forgets it.
    await this.notifier.publish(statusTopic(sender.id, conversation.id), id);
    const platform = await this.show(conversation, sender, line);
    const now = this.statuses.get(key);
    if (now && now.id === id) now.platform = platform;
    return { conversation, platform };
  }

  /** Listens for the agent's answer in the conversation, and for a status set or cleared by another process. */
  private async listen(agentId: string, conversationId: string, key: string): Promise<() => Promise<void>> {
    const stops = await Promise.all([
      // An empty payload says wake-ups may have been missed: the status then ends by its timeout.
      this.notifier.subscribe(writerTopic(agentId, conversationId), (messageId) => {
        if (messageId)
          void this.clearKey(key).catch((err: unknown) => this.logger.warn({ err }, 'could not clear a status'));
      }),
      this.notifier.subscribe(statusTopic(agentId, conversationId), (id) => {
        const s = this.statuses.get(key);
        if (id && s && s.id !== id) void this.forget(key, s);
      }),
    ]);
    return async () => {
      await Promise.all(stops.map((stop) => stop()));
    };
  }

  /** Forgets a status replaced by another process (which shows the new one). */
  private async forget(key: string, s: Status): Promise<void> {
    if (this.statuses.get(key) !== s) return;
    clearTimeout(s.timer);
    this.statuses.delete(key);
    await s.stop();
  }

  /** Clears the status an agent shows in a conversation, if any (it answered). */
  clear(agentId: string, conversationId: string): Promise<void> {
    return this.clearKey(statusKey(agentId, conversationId));
  }

  /** Clears the status an agent shows in a conversation, from whichever process holds it (its streamed answer began). */
  async began(agentId: string, conversationId: string, streamId: string): Promise<void> {
    await this.clear(agentId, conversationId);
    await this.notifier.publish(writerTopic(agentId, conversationId), streamId);
  }

  /** Clears every status an agent shows from this process (its MCP session closed). */
  async forgetAgent(agentId: string): Promise<void> {
    await Promise.all(
      [...this.statuses.keys()].filter((k) => k.startsWith(`${agentId}:`)).map((k) => this.clearKey(k)),
    );
  }

  /** Clears every status (the process is stopping). */
  async close(): Promise<void> {
    await Promise.all([...this.statuses.keys()].map((k) => this.clearKey(k)));
  }

  /** Clears a status (the agent answered, its session ended, or it timed out). */
  private async clearKey(key: string): Promise<void> {
    const s = this.statuses.get(key);
    if (!s) return;
    clearTimeout(s.timer);
    this.statuses.delete(key);
    await s.stop();
    await this.show(s.conversation, s.sender, null);
  }

  private async show(conversation: Conversation, sender: Agent, text: string | null): Promise<boolean> {
    await this.publish(conversation, sender, { status: text, stream: null });
    const port = conversation.kind === 'external' ? this.portFor(conversation.surface) : null;
    if (!port?.setStatus) return false;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await port.setStatus(conversation, sender, text);
      } catch (err) {
        // A dropped connection is tried once more (a status left showing would outlive the answer); nothing else is retried.
        if (attempt === 1 && isDeliveryError(err) && err.failure.kind === 'transient') continue;
        // A status is a courtesy: a platform that refuses it changes nothing else.
        this.logger.warn(
          { err: isDeliveryError(err) ? err.failure : err, conversationId: conversation.id },
          'could not show an agent status',
        );
        return false;
      }
    }
  }

  private async answered(m: Message): Promise<void> {
    await this.clear(m.senderId, m.conversationId).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not clear a status'),
    );
  }
}
