// An agent's status line in a conversation ("is thinking…"): shown on the
// conversation's chat platform when it has a place for one, and to the web
// chat always; cleared when the agent answers there, when its session ends,
// or after a while.
import { isDeliveryError } from '../delivery/failure.ts';
import type { SurfaceOutbound } from '../delivery/surface-outbound.ts';
import { invalidInput } from '../errors.ts';
import type { MessagingService } from '../messaging/messaging-service.ts';
import type { Conversation, Message } from '../messaging/message.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { LiveEvent } from './live-event.ts';

/** The longest status line. */
export const MAX_STATUS_CHARS = 150;

interface Status {
  text: string;
  /** Whether the platform showed it; undefined until it answered. */
  platform?: boolean;
  conversation: Conversation;
  sender: Agent;
  timer: ReturnType<typeof setTimeout>;
}

const statusKey = (agentId: string, conversationId: string) => `${agentId}:${conversationId}`;

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
    const earlier = this.statuses.get(key);
    if (earlier) clearTimeout(earlier.timer);
    // The same status again only restarts its timeout: the platform is not asked twice.
    const again = earlier?.text === line && earlier?.platform !== undefined;
    if (line) {
      const timer = setTimeout(() => {
        void this.clearKey(key);
      }, this.options.statusTimeoutMs);
      timer.unref?.();
      this.statuses.set(key, {
        text: line,
        conversation,
        sender,
        timer,
        platform: again ? earlier!.platform : undefined,
      });
      if (again) return { conversation, platform: earlier!.platform! };
    } else {
      this.statuses.delete(key);
    }
    const platform = await this.show(conversation, sender, line);
    const now = this.statuses.get(key);
    if (now && now.text === line) now.platform = platform;
    return { conversation, platform };
  }

  /** Clears the status an agent shows in a conversation, if any (it answered, or began to). */
  clear(agentId: string, conversationId: string): Promise<void> {
    return this.clearKey(statusKey(agentId, conversationId));
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
