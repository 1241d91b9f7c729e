// An agent at work, shown the same way on every surface: a status line ("is
// thinking…") and a message streamed as it is written. Both are ephemeral
// until a stream finishes: then its text is stored once, as one message, by
// MessagingService.send with the same rules as send_message, and the post job
// puts that text into the live post the stream made.
//
// Live state is kept in the process where it started (a stream's platform
// post, timers and pacing live there). A call about a stream that reaches
// another process (a client speaking MCP 2026-07-28 has no session, so its
// requests may reach any) is passed to the holder through the notifier
// (stream-calls.ts). Surfaces render it through their optional SurfaceLive
// members, or through post-then-update when they have none; the web chat
// hears it on the conversation's topic, from any process.
import { randomUUID } from 'node:crypto';
import { isDeliveryError } from '../delivery/failure.ts';
import { pacedCall } from '../delivery/pacer.ts';
import type { LiveDraft, OutboundMessage, SurfaceOutbound } from '../delivery/surface-outbound.ts';
import { invalidInput, isOutage, RetryLater, SwitchboardError } from '../errors.ts';
import {
  conversationTopic,
  type MessagingService,
  type SendInput,
  type SendResult,
} from '../messaging/messaging-service.ts';
import { label, MAX_BODY_CHARS } from '../messaging/rules.ts';
import type { Conversation, LivePost, Message } from '../messaging/message.ts';
import type { Clock, Notifier } from '../ports.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { LiveEvent } from './live-event.ts';
import { answerCalls, callHolder } from './stream-calls.ts';

export type { LiveEvent };

/** The prefix of a live event on a conversation's topic (message ids are UUIDs, so they never start with it). */
export const LIVE_PAYLOAD = 'live:';
/** The most of a stream's text a live event carries (its tail): wake-ups travel through Postgres NOTIFY, which caps a payload at 8000 bytes. */
const LIVE_TEXT_MAX = 1500;
/** The longest status line. */
export const MAX_STATUS_CHARS = 150;
/** Streams one agent may keep open at once in one process. */
const MAX_OPEN_STREAMS = 5;
/** How long a call about a stream held elsewhere waits for the holder to answer before the stream counts as unknown. */
const HOLDER_WAIT_MS = 3_000;

/** Where a failed live update is noted (pino's logger fits). */
export interface LiveLogger {
  warn(facts: object, message: string): void;
}

export interface LiveOptions {
  /** Least time between two updates of one live post (the platform's own pace per conversation applies too). */
  updateIntervalMs: number;
  /** A status not cleared by the agent is cleared after this long. */
  statusTimeoutMs: number;
  /** A stream with no append for this long is finished with what it has. */
  streamIdleMs: number;
}

export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  updateIntervalMs: 1_000,
  statusTimeoutMs: 120_000,
  streamIdleMs: 120_000,
};

export interface StartInput extends Omit<SendInput, 'body' | 'id' | 'livePost'> {
  /** The first words, if the agent has them already. */
  text?: string;
}

interface Stream {
  id: string;
  input: StartInput;
  conversation: Conversation;
  /** Checks again what can change while the stream is open: send permission, recipients' rules, audience (MessagingService.preview's `recheck`). */
  recheck: () => Promise<void>;
  text: string;
  /** Characters of `text` already on the platform. */
  sent: number;
  sequence: number;
  port: SurfaceOutbound | null;
  post: LivePost | null;
  /** The platform refused for good; the post job posts the final message instead. */
  broken: boolean;
  lastFlush: number;
  /** An update is waiting its turn in `chain`. */
  flushPending: boolean;
  idleTimer: ReturnType<typeof setTimeout> | null;
  /** Platform calls of this stream, one at a time. */
  chain: Promise<void>;
  finishing: boolean;
  /** Stops answering calls about it from other processes. */
  stopCalls: (() => Promise<void>) | null;
}

/** A call about a stream, passed from the process it reached to the one holding the stream. */
interface StreamCall {
  op: 'append' | 'finish';
  /** ownerKey of the caller. */
  owner: string;
  text: string;
}

interface Status {
  text: string;
  /** Whether the platform showed it; undefined until it answered. */
  platform?: boolean;
  conversation: Conversation;
  sender: Agent;
  timer: ReturnType<typeof setTimeout>;
}

const statusKey = (agentId: string, conversationId: string) => `${agentId}:${conversationId}`;
/** Whose a stream is: one agent's, in one workspace (the same agent's sessions in other workspaces do not reach it). */
const ownerKey = (ws: Workspace, sender: Agent) => `${ws.id}:${sender.id}`;
/** Refusals that pass with time (the rate limit, an outage): a finish refused for one keeps the stream open to be finished again. */
const passes = (e: unknown): e is SwitchboardError =>
  e instanceof SwitchboardError && (e.code === 'RATE_LIMITED' || isOutage(e));
const unknownStream = (streamId: string) =>
  new SwitchboardError(
    'NOT_FOUND',
    `There is no open streamed message ${streamId} of yours; use the stream_id start_message returned, or start one.`,
  );
/** A conversation held on a chat surface (a Slack or Teams thread), which that surface's port shows. */
const isExternal = (c: Conversation) => c.kind === 'external';

/** Statuses and streamed messages of the agents connected to this process. */
export class LiveService {
  private readonly streams = new Map<string, Stream>();
  private readonly statuses = new Map<string, Status>();
  /** Why recently ended streams ended (and whose they were), so a late append hears why rather than "unknown". */
  private readonly ended = new Map<string, { why: string; owner: string }>();

  constructor(
    private readonly messaging: MessagingService,
    private readonly notifier: Notifier,
    private readonly clock: Clock,
    /** The outbound port of a chat surface configured in this process; null for others. */
    private readonly portFor: (surface: SurfaceName) => SurfaceOutbound | null,
    private readonly logger: LiveLogger,
    private readonly options: LiveOptions = DEFAULT_LIVE_OPTIONS,
  ) {
    // An answer clears the status its sender showed in that conversation.
    messaging.onSent.push((m) => {
      void this.answered(m);
    });
  }

  /**
   * Shows `text` as the agent's status in a conversation it may write in, or
   * clears it (null). Returns whether the conversation's chat platform shows it
   * (the web chat always does).
   */
  async setStatus(
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
        void this.clearStatus(key);
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
    const platform = await this.showStatus(conversation, sender, line);
    const now = this.statuses.get(key);
    if (now && now.text === line) now.platform = platform;
    return { conversation, platform };
  }

  /** Clears a status (the agent answered, its session ended, or it timed out). */
  private async clearStatus(key: string): Promise<void> {
    const s = this.statuses.get(key);
    if (!s) return;
    clearTimeout(s.timer);
    this.statuses.delete(key);
    await this.showStatus(s.conversation, s.sender, null);
  }

  private async showStatus(conversation: Conversation, sender: Agent, text: string | null): Promise<boolean> {
    await this.publish(conversation, sender, { status: text, stream: null });
    const port = isExternal(conversation) ? this.portFor(conversation.surface) : null;
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
    await this.clearStatus(statusKey(m.senderId, m.conversationId)).catch((err: unknown) =>
      this.logger.warn({ err }, 'could not clear a status'),
    );
  }

  /** Clears every status an agent shows from this process (its MCP session closed). */
  async forgetAgent(agentId: string): Promise<void> {
    await Promise.all(
      [...this.statuses.keys()].filter((k) => k.startsWith(`${agentId}:`)).map((k) => this.clearStatus(k)),
    );
  }

  /**
   * Starts a streamed message, checked like send_message now (the rate limit and
   * the plan's monthly count included) and again when it is stored. The text goes
   * live on the conversation's surface as it is appended.
   */
  async start(
    input: StartInput,
  ): Promise<{ streamId: string; conversation: Conversation; recipients: SendResult['recipients'] }> {
    const open = [...this.streams.values()].filter((s) => s.input.sender.id === input.sender.id).length;
    if (open >= MAX_OPEN_STREAMS)
      throw new SwitchboardError(
        'RATE_LIMITED',
        `You have ${open} streamed messages open; finish one with finish_message before starting another.`,
      );
    const text = input.text ?? '';
    this.checkLength(text);
    const { conversation, recipients, recheck } = await this.messaging.preview(input, { limits: true });
    const stream: Stream = {
      id: randomUUID(),
      input,
      conversation,
      recheck,
      text,
      sent: 0,
      sequence: 0,
      port:
        isExternal(conversation) && input.surface !== conversation.surface ? this.portFor(conversation.surface) : null,
      post: null,
      broken: false,
      lastFlush: 0,
      flushPending: false,
      idleTimer: null,
      chain: Promise.resolve(),
      finishing: false,
      stopCalls: null,
    };
    this.streams.set(stream.id, stream);
    // Before its id is returned: the next call about it may reach another process.
    stream.stopCalls = await answerCalls(
      this.notifier,
      stream.id,
      (call) => this.answer(stream.id, call as StreamCall),
      (err) =>
        this.logger.warn({ err, streamId: stream.id }, 'could not answer a call about a stream from another process'),
    );
    this.touch(stream);
    // The answer has begun: the status gives way to it.
    await this.clearStatus(statusKey(input.sender.id, conversation.id));
    this.scheduleFlush(stream);
    return { streamId: stream.id, conversation, recipients };
  }

  /** Adds text to a stream; it goes live at the next update (at most one per update interval). Returns the length so far. */
  async append(
    ws: Workspace,
    sender: Agent,
    streamId: string,
    text: string,
  ): Promise<{ length: number; conversation: Conversation }> {
    const owner = ownerKey(ws, sender);
    if (!this.knows(streamId)) return (await this.elsewhere({ op: 'append', owner, text }, streamId)) as never;
    const stream = this.own(owner, streamId);
    this.checkLength(stream.text + text);
    stream.text += text;
    this.touch(stream);
    this.scheduleFlush(stream);
    return { length: stream.text.length, conversation: stream.conversation };
  }

  /**
   * Ends a stream: `text` is appended, then the whole text is stored once as one message and the live post shows it.
   * Refused for a reason that passes with time (the rate limit, an outage), the stream stays open with the text it had
   * before this call, so the same call can simply be repeated; refused for any other, it ends and what it showed is
   * withdrawn. The refusal says which.
   */
  async finish(ws: Workspace, sender: Agent, streamId: string, text = ''): Promise<SendResult> {
    const owner = ownerKey(ws, sender);
    if (!this.knows(streamId)) return (await this.elsewhere({ op: 'finish', owner, text }, streamId)) as SendResult;
    const stream = this.own(owner, streamId);
    const before = stream.text;
    this.checkLength(before + text);
    stream.text += text;
    return this.end(stream, 'finished', before);
  }

  /** Whether this process holds the stream, or held it lately. */
  private knows(streamId: string): boolean {
    return this.streams.has(streamId) || this.ended.has(streamId);
  }

  /** A call about a stream this process does not hold, passed to the process that does; unknown when none answers. */
  private elsewhere(call: StreamCall, streamId: string): Promise<unknown> {
    return callHolder(this.notifier, streamId, call, HOLDER_WAIT_MS, () => unknownStream(streamId));
  }

  /** Runs a call about a stream held here that reached another process: for its owner only, like any call. */
  private async answer(streamId: string, call: StreamCall): Promise<unknown> {
    const stream = this.own(call.owner, streamId);
    const { workspace, sender } = stream.input;
    return call.op === 'append'
      ? this.append(workspace, sender, streamId, call.text)
      : this.finish(workspace, sender, streamId, call.text);
  }

  /** Stores a stream's text; `before` is what it held before the finishing call, kept when the refusal passes with time. */
  private async end(stream: Stream, why: string, before = stream.text): Promise<SendResult> {
    stream.finishing = true;
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    await stream.chain;
    // Refused by the check before a live update meanwhile: it is over, and nothing of it is stored.
    if (!this.streams.has(stream.id)) this.own(ownerKey(stream.input.workspace, stream.input.sender), stream.id);
    const body = stream.text.trim();
    let result: SendResult;
    try {
      if (!body)
        throw invalidInput(
          'The streamed message is empty, so nothing was sent; start a new one and append text before finishing.',
        );
      result = await this.messaging.send({
        ...stream.input,
        body,
        id: stream.id,
        ...(stream.post ? { livePost: stream.post } : {}),
      });
    } catch (e) {
      if (passes(e)) {
        // Nothing was stored and nothing is lost: the stream goes on as it was (its idle timer restarted), readers still see it.
        // The finishing call's text is taken back, so the agent repeating that same call does not add it twice.
        stream.text = before;
        stream.finishing = false;
        this.touch(stream);
        this.scheduleFlush(stream);
        throw new SwitchboardError(
          e.code,
          e.message,
          { ...e.details, stream: 'open' },
          `Your streamed message ${stream.id} stays open with the ${stream.text.length} characters it had before this call: make the same finish_message call again then, with the same text (append_message still works).`,
        );
      }
      await this.drop(stream, why);
      if (!(e instanceof SwitchboardError) || e.code === 'INVALID_INPUT') throw e;
      throw new SwitchboardError(
        e.code,
        e.message,
        { ...e.details, stream: 'ended' },
        'The streamed message has ended and nothing of it was stored; what it showed was withdrawn.',
      );
    }
    // Stored, or refused by every recipient (the answer lists why): either way the stream is over.
    await this.drop(stream, why, Boolean(result.message));
    return result;
  }

  /** Closes a stream for good: later calls hear why; unless its message was stored, what it showed is withdrawn. */
  private async drop(stream: Stream, why: string, stored = false): Promise<void> {
    stream.finishing = true;
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    if (!this.streams.delete(stream.id)) return;
    void stream.stopCalls?.().catch(() => {});
    this.ended.set(stream.id, { why, owner: ownerKey(stream.input.workspace, stream.input.sender) });
    if (this.ended.size > 500) this.ended.delete(this.ended.keys().next().value!);
    try {
      if (!stored) await this.withdraw(stream);
    } finally {
      await this.publish(stream.conversation, stream.input.sender, {
        status: null,
        stream: { id: stream.id, text: '', truncated: false, done: true },
      });
    }
  }

  /** Removes a live post whose message was refused when it was stored, so the platform does not show what Switchboard never kept. */
  private async withdraw(stream: Stream): Promise<void> {
    if (!stream.port || !stream.post) return;
    try {
      await stream.port.remove(stream.conversation, stream.post.externalId);
    } catch (err) {
      this.logger.warn(
        { err: isDeliveryError(err) ? err.failure : err, streamId: stream.id },
        'could not remove the live post of a refused stream',
      );
    }
  }

  /** The caller's stream (`owner` is its ownerKey): only its own, started in this workspace; any other id is answered as unknown. */
  private own(owner: string, streamId: string): Stream {
    const stream = this.streams.get(streamId);
    const mine = stream && ownerKey(stream.input.workspace, stream.input.sender) === owner ? stream : null;
    if (mine && !mine.finishing) return mine;
    if (mine)
      throw new SwitchboardError(
        'CONFLICT',
        `The streamed message ${streamId} is being finished; wait for the answer of finish_message.`,
      );
    const ended = stream ? undefined : this.ended.get(streamId);
    if (ended?.owner === owner)
      throw new SwitchboardError(
        'NOT_FOUND',
        `The streamed message ${streamId} has already ended (${ended.why}); start a new one with start_message.`,
      );
    throw unknownStream(streamId);
  }

  private checkLength(text: string) {
    if (text.length > MAX_BODY_CHARS)
      throw invalidInput(
        `The streamed message would be ${text.length} characters; the limit is ${MAX_BODY_CHARS}. Finish it and continue in another message.`,
      );
  }

  /** Restarts the idle timer: a stream left alone is finished with what it has. */
  private touch(stream: Stream) {
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    stream.idleTimer = setTimeout(() => {
      const ms = this.options.streamIdleMs;
      this.end(
        stream,
        `finished by Switchboard after ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`} without an append`,
      ).catch((err: unknown) => {
        this.logger.warn(
          { err, streamId: stream.id },
          'a streamed message left open could not be stored (it stays open when the refusal passes with time)',
        );
      });
    }, this.options.streamIdleMs);
    stream.idleTimer.unref?.();
  }

  /**
   * At most one update per interval: appends in between are gathered into the
   * next one, which waits (in the stream's chain, after the update in flight)
   * until the interval has passed since the last update ended.
   */
  private scheduleFlush(stream: Stream) {
    if (stream.flushPending || stream.finishing) return;
    stream.flushPending = true;
    stream.chain = stream.chain.then(async () => {
      const wait = stream.lastFlush + this.options.updateIntervalMs - this.clock.now().getTime();
      if (wait > 0)
        await new Promise<void>((resolve) => {
          setTimeout(resolve, wait).unref?.();
        });
      stream.flushPending = false;
      // A finished stream's text goes out with its stored message instead.
      if (!stream.finishing) await this.flush(stream);
    });
  }

  private async flush(stream: Stream): Promise<void> {
    const text = stream.text;
    try {
      // Checked again before new text goes out: since it started, the agent may have read what this conversation's
      // audience may not (the audience rule), or lost the right to write here, and a recipient may no longer take its
      // messages (its owner changed takes_messages_from, or took it out). Where it goes and to whom were settled at the
      // start, so those recipients' rules are applied again but the recipients are not worked out anew.
      if (!(await this.stillAllowed(stream))) return;
      await this.publish(stream.conversation, stream.input.sender, {
        status: null,
        stream: {
          id: stream.id,
          text: text.slice(-LIVE_TEXT_MAX),
          truncated: text.length > LIVE_TEXT_MAX,
          done: false,
        },
      });
      if (stream.port && !stream.broken && text.trim() && text.length !== stream.sent)
        await this.render(stream, stream.port, text);
    } finally {
      // Counted from the end of this update, so a slow platform call never brings the next one closer than the interval.
      stream.lastFlush = this.clock.now().getTime();
    }
  }

  /**
   * Whether the stream may still show its text; a refusal ends it (after this update, outside the stream's chain): the
   * live post is withdrawn and the agent's next call says why. A failure to check (the database away) skips this update.
   */
  private async stillAllowed(stream: Stream): Promise<boolean> {
    try {
      await stream.recheck();
      return true;
    } catch (e) {
      if (!(e instanceof SwitchboardError) || e.code === 'UNAVAILABLE') {
        this.logger.warn(
          { err: e, streamId: stream.id },
          'could not check a streamed message before updating it; this update is skipped',
        );
        this.scheduleFlush(stream);
        return false;
      }
      // Nothing is stored: the post is withdrawn, and the agent's next call hears the refusal from `ended`.
      await this.drop(stream, `refused: ${e.message}`).catch((err: unknown) =>
        this.logger.warn({ err, streamId: stream.id }, 'could not end a refused stream'),
      );
      return false;
    }
  }

  /** Puts the text so far on the platform: the first time as a stream or a post, then as an append or an update. */
  private async render(stream: Stream, port: SurfaceOutbound, text: string): Promise<void> {
    const key = port.paceKey(stream.conversation);
    if (!key) return;
    const draft: LiveDraft = {
      id: stream.id,
      sender: stream.input.sender,
      conversation: stream.conversation,
      text,
      sequence: stream.sequence,
    };
    try {
      await pacedCall(port.pacer, key, async () => {
        const post = stream.post;
        if (!post) {
          const streamed = port.startStream ? await port.startStream(draft) : null;
          stream.post = streamed
            ? { kind: 'stream', ...streamed }
            : { kind: 'post', ...(await port.post(this.outbound(draft))) };
        } else if (post.kind === 'stream' && port.appendStream) {
          await port.appendStream(draft, post.externalId, text.slice(stream.sent));
        } else {
          await port.update(this.outbound(draft), post.externalId);
        }
      });
      stream.sent = text.length;
      stream.sequence += 1;
    } catch (err) {
      const failure = isDeliveryError(err) ? err.failure : null;
      if (!(err instanceof RetryLater) && (!failure || failure.kind === 'permanent')) stream.broken = true;
      // Busy, throttled or unreachable: this update is skipped, and another carries its text an interval later.
      if (!stream.broken) this.scheduleFlush(stream);
      if (err instanceof RetryLater) return;
      this.logger.warn(
        { err: failure ?? err, streamId: stream.id },
        stream.broken
          ? 'live updates of a stream stopped; its message is posted when it finishes'
          : 'a live update was skipped',
      );
    }
  }

  /** A draft in the shape the post path takes (post-then-update fallback); it carries the id the stored message will have. */
  private outbound(draft: LiveDraft): OutboundMessage {
    const m = draft.conversation;
    const message: Message = {
      id: draft.id,
      workspaceId: m.workspaceId,
      conversationId: m.id,
      senderId: draft.sender.id,
      body: draft.text,
      replyTo: null,
      chainId: draft.id,
      hop: 0,
      askerPersonId: null,
      askerIdentityId: null,
      surface: 'mcp',
      permalink: null,
      externalId: null,
      createdAt: this.clock.now(),
    };
    return { message, sender: draft.sender, conversation: draft.conversation };
  }

  private async publish(
    conversation: Conversation,
    sender: Agent,
    e: Pick<LiveEvent, 'status' | 'stream'>,
  ): Promise<void> {
    const event: LiveEvent = {
      conversation_id: conversation.id,
      agent_id: sender.id,
      agent: label(sender),
      display_name: sender.displayName,
      ...e,
    };
    await this.notifier.publish(conversationTopic(conversation.id), LIVE_PAYLOAD + JSON.stringify(event));
  }

  /** Finishes every open stream with what it has and clears every status (the process is stopping). */
  async close(): Promise<void> {
    // A stream whose message could not be stored now (even for a reason that passes) has no later here: it is dropped.
    await Promise.all(
      [...this.streams.values()].map((s) =>
        this.end(s, 'finished by Switchboard when the server stopped')
          .catch(() => this.drop(s, 'the server stopped before it could be stored'))
          .catch(() => {}),
      ),
    );
    await Promise.all([...this.statuses.keys()].map((k) => this.clearStatus(k)));
  }
}
