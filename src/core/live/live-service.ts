// An agent at work, shown the same way on every surface: a status line ("is
// thinking…") and a message streamed as it is written. A stream is stored as a
// message once, when it finishes, by MessagingService.send with the same rules
// as send_message, and the post job puts that text into the live post the
// stream made.
//
// Live state is kept in the process where it started (a stream's platform
// post, timers and pacing live there). A call about a stream that reaches
// another process (a client speaking MCP 2026-07-28 has no session, so its
// requests may reach any) is passed to the holder through the notifier
// (stream-calls.ts). A stream's text is also kept in the store as it grows
// (live-drafts.ts), so that another process finishes it when its own stops
// without doing so. Surfaces render it through their optional SurfaceLive
// members, or through post-then-update when they have none; a platform's own
// stream is settled into a plain post before the platform's time limits end it
// (and after, when the platform ended it anyway). The web chat hears it on the
// conversation's topic, from any process.
import { randomUUID } from 'node:crypto';
import type { SurfaceOutbound } from '../delivery/surface-outbound.ts';
import { invalidInput, isOutage, PermanentFailure, RetryLater, SwitchboardError, TransientFailure } from '../errors.ts';
import { conversationTopic, type MessagingService, type SendResult } from '../messaging/messaging-service.ts';
import { label, MAX_BODY_CHARS } from '../messaging/rules.ts';
import type { Conversation } from '../messaging/message.ts';
import type { Clock, Notifier, Store } from '../ports.ts';
import type { Agent, SurfaceName, Workspace } from '../entities.ts';
import type { LiveEvent } from './live-event.ts';
import { LiveStatuses } from './statuses.ts';
import { LivePosts, type LiveLogger } from './platform.ts';
import type { StartInput, Stream } from './stream.ts';
import { SavedDraft, type LiveDrafts } from './live-drafts.ts';
import { answerCalls, callHolder, type StreamCall } from './stream-calls.ts';

export type { LiveEvent };
export type { LiveLogger } from './platform.ts';
export type { StartInput } from './stream.ts';
export { MAX_STATUS_CHARS } from './statuses.ts';

/** The prefix of a live event on a conversation's topic (message ids are UUIDs, so they never start with it). */
export const LIVE_PAYLOAD = 'live:';
/** The most of a stream's text a live event carries (its tail): wake-ups travel through Postgres NOTIFY, which caps a payload at 8000 bytes. */
const LIVE_TEXT_MAX = 1500;
/** Streams one agent may keep open at once in one process. */
const MAX_OPEN_STREAMS = 5;

export interface LiveOptions {
  /** Least time between two updates of one live post (the platform's own pace per conversation applies too). */
  updateIntervalMs: number;
  /** A status not cleared by the agent is cleared after this long. */
  statusTimeoutMs: number;
  /** A stream with no append for this long is finished with what it has. */
  streamIdleMs: number;
  /** A stream kept in the store and not updated for this long is finished by any process (its own one stopped); default streamIdleMs plus a minute. */
  rescueAfterMs?: number;
  /** How long a call about a stream held elsewhere waits for the holder to answer before none counts as holding it; default 3 s. */
  holderWaitMs?: number;
}

/** What keeps streams beyond the process: the drafts, and the store to finish one from. */
export interface LiveDurability {
  drafts: LiveDrafts;
  store: Pick<Store, 'workspaces' | 'agents' | 'messages'>;
}

export const DEFAULT_LIVE_OPTIONS: LiveOptions = {
  updateIntervalMs: 1_000,
  statusTimeoutMs: 120_000,
  streamIdleMs: 120_000,
};

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
  private readonly statuses: LiveStatuses;
  private readonly posts: LivePosts;
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
    /** Without it, a stream lives only as long as its process. */
    private readonly durable: LiveDurability | null = null,
  ) {
    this.statuses = new LiveStatuses(messaging, notifier, (c, a, e) => this.publish(c, a, e), portFor, logger, options);
    this.posts = new LivePosts(clock, logger, {
      scheduleFlush: (stream) => this.scheduleFlush(stream),
      keep: (stream) => this.keep(stream),
    });
  }

  /**
   * Shows `text` as the agent's status in a conversation it may write in, or
   * clears it (null). Returns whether the conversation's chat platform shows it
   * (the web chat always does).
   */
  setStatus(
    ws: Workspace,
    sender: Agent,
    conversationId: string,
    text: string | null,
  ): Promise<{ conversation: Conversation; platform: boolean }> {
    return this.statuses.set(ws, sender, conversationId, text);
  }

  /** Clears every status an agent shows from this process (its MCP session closed). */
  forgetAgent(agentId: string): Promise<void> {
    return this.statuses.forgetAgent(agentId);
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
      streamSince: 0,
      lastSent: 0,
      settleTimer: null,
      kept: '',
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
    // Kept before its id is returned too, so that another process reached by a call about it knows it is open.
    await this.keep(stream);
    this.touch(stream);
    // The answer has begun: the status gives way to it.
    await this.statuses.began(input.sender.id, conversation.id, stream.id);
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

  /**
   * A call about a stream this process does not hold, passed to the process that does; unknown when none answers.
   * Where streams are kept in the store, one the store does not keep open is unknown at once: no process holds it.
   */
  private async elsewhere(call: StreamCall, streamId: string): Promise<unknown> {
    if (this.durable && !(await this.durable.drafts.isOpen(streamId))) throw unknownStream(streamId);
    return callHolder(this.notifier, streamId, call, this.options.holderWaitMs ?? 3_000, () => unknownStream(streamId));
  }

  /** Whether a living process other than this one holds the stream (and so finishes it). */
  private heldElsewhere(streamId: string, owner: string): Promise<boolean> {
    return this.elsewhere({ op: 'held', owner, text: '' }, streamId).then(
      (held) => held === true,
      (e: unknown) => {
        if (e instanceof SwitchboardError && e.code === 'NOT_FOUND') return false;
        throw e;
      },
    );
  }

  /** Runs a call about a stream held here that reached another process: for its owner only, like any call. */
  private async answer(streamId: string, call: StreamCall): Promise<unknown> {
    // Held here, even while being finished: a rescue elsewhere leaves it to this process.
    if (call.op === 'held') return this.streams.has(streamId);
    const stream = this.own(call.owner, streamId);
    const { workspace, sender } = stream.input;
    return call.op === 'append'
      ? this.append(workspace, sender, streamId, call.text)
      : this.finish(workspace, sender, streamId, call.text);
  }

  /** Stores a stream's text; `before` is what it held before the finishing call, kept when the refusal passes with time. */
  private async end(stream: Stream, why: string, before = stream.text): Promise<SendResult> {
    stream.finishing = true;
    this.stopTimers(stream);
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
        if (stream.port) this.posts.armSettle(stream, stream.port);
        // Still open here: the rescue (which would store it as it was) is put off again.
        void this.keep(stream, { again: true });
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
    this.stopTimers(stream);
    if (!this.streams.delete(stream.id)) return;
    void stream.stopCalls?.().catch(() => {});
    this.ended.set(stream.id, { why, owner: ownerKey(stream.input.workspace, stream.input.sender) });
    if (this.ended.size > 500) this.ended.delete(this.ended.keys().next().value!);
    try {
      await this.durable?.drafts
        .drop(stream.id)
        .catch((err: unknown) =>
          this.logger.warn({ err, streamId: stream.id }, 'could not forget the kept draft of an ended stream'),
        );
      if (!stored) await this.posts.withdraw(stream.conversation, stream.port, stream.post, stream.id);
    } finally {
      await this.publishDone(stream.conversation, stream.input.sender, stream.id);
    }
  }

  private stopTimers(stream: Stream) {
    if (stream.idleTimer) clearTimeout(stream.idleTimer);
    if (stream.settleTimer) clearTimeout(stream.settleTimer);
    stream.settleTimer = null;
  }

  private publishDone(conversation: Conversation, sender: Agent, id: string): Promise<void> {
    return this.publish(conversation, sender, { status: null, stream: { id, text: '', truncated: false, done: true } });
  }

  /** Lets go of a stream this process cannot finish: it stays in the store, due at once for another process to finish. */
  private async leave(stream: Stream): Promise<void> {
    if (!this.streams.has(stream.id)) return;
    await this.keep(stream, { again: true, dueInMs: 0 });
    stream.finishing = true;
    this.stopTimers(stream);
    this.streams.delete(stream.id);
    await stream.stopCalls?.().catch(() => {});
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
        await this.posts.render(stream, stream.port, text);
      await this.keep(stream);
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

  /**
   * Keeps the stream in the store as it is now, unless that was done already (`again` keeps it anyway), due to be
   * finished by another process after `dueInMs` (rescueAfterMs).
   */
  private async keep(stream: Stream, o: { again?: boolean; dueInMs?: number } = {}): Promise<void> {
    if (!this.durable || stream.finishing) return;
    const mark = `${stream.text.length}:${stream.post?.kind ?? ''}:${stream.post?.externalId ?? ''}`;
    if (mark === stream.kept && !o.again) return;
    const { input } = stream;
    const draft: SavedDraft = {
      id: stream.id,
      workspaceId: input.workspace.id,
      senderId: input.sender.id,
      conversationId: stream.conversation.id,
      target: {
        ...(input.to ? { to: input.to } : {}),
        ...(input.conversationId ? { conversationId: input.conversationId } : {}),
        ...(input.replyTo ? { replyTo: input.replyTo } : {}),
      },
      ...(input.surface ? { surface: input.surface } : {}),
      text: stream.text,
      post: stream.post,
    };
    try {
      await this.durable.drafts.keep(draft, new Date(this.clock.now().getTime() + (o.dueInMs ?? this.rescueAfterMs())));
      stream.kept = mark;
    } catch (err) {
      this.logger.warn(
        { err, streamId: stream.id },
        'could not keep a streamed message in the store; it is kept at the next update',
      );
    }
  }

  private rescueAfterMs(): number {
    return this.options.rescueAfterMs ?? this.options.streamIdleMs + 60_000;
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

  /**
   * Finishes a stream whose process stopped without finishing it, from what the store kept of it (the LIVE_RESCUE
   * job): its text so far is stored as its message, as finish_message would have, and the post job completes the
   * platform post it made. A refusal that passes with time is tried again by the queue; any other withdraws that post.
   */
  async rescue(payload: Record<string, unknown>): Promise<void> {
    if (!this.durable)
      throw new PermanentFailure('Streamed messages are not kept in this process, so none can be finished here.');
    const parsed = SavedDraft.safeParse(payload);
    if (!parsed.success)
      throw new PermanentFailure(`The kept streamed message is malformed (${parsed.error.issues[0]?.message}).`);
    const d = parsed.data;
    // Still open here (its updates were late): it is looked at again later, when its process has had its turn.
    if (this.streams.has(d.id))
      throw new RetryLater('the streamed message is still open in this process', this.rescueAfterMs());
    const { store } = this.durable;
    const [ws, sender, conversation] = await Promise.all([
      store.workspaces.get(d.workspaceId),
      store.agents.get(d.senderId),
      store.messages.getConversation(d.workspaceId, d.conversationId),
    ]);
    // Gone since (workspace, agent or conversation), or stored already by its process before it stopped.
    if (!ws || !sender || !conversation || (await store.messages.get(ws.id, d.id))) return;
    // Held by a process that lives (its updates were late, or it is finishing it now): that process stores it.
    if (await this.heldElsewhere(d.id, ownerKey(ws, sender)))
      throw new RetryLater('the streamed message is still open in the process holding it', this.rescueAfterMs());
    const port =
      isExternal(conversation) && d.surface !== conversation.surface ? this.portFor(conversation.surface) : null;
    const body = d.text.trim();
    try {
      if (!body) return await this.posts.withdraw(conversation, port, d.post, d.id);
      const result = await this.messaging.send({
        workspace: ws,
        sender,
        ...d.target,
        ...(d.surface ? { surface: d.surface as SurfaceName } : {}),
        body,
        id: d.id,
        ...(d.post ? { livePost: d.post } : {}),
      });
      // Refused by every recipient (nothing stored): what it showed comes down, as when its own process finishes it.
      if (!result.message) return await this.posts.withdraw(conversation, port, d.post, d.id);
      this.logger.warn({ streamId: d.id, chars: body.length }, 'stored a streamed message its process left open');
    } catch (e) {
      if (passes(e)) throw new TransientFailure(e.message);
      if (await store.messages.get(ws.id, d.id)) return;
      await this.posts.withdraw(conversation, port, d.post, d.id);
      this.logger.warn(
        { err: e, streamId: d.id },
        'a streamed message its process left open was refused when stored; its live post was withdrawn',
      );
    } finally {
      await this.publishDone(conversation, sender, d.id);
    }
  }

  /** Finishes every open stream with what it has and clears every status (the process is stopping). */
  async close(): Promise<void> {
    // A stream whose message cannot be stored now (even for a reason that passes) is left in the store for the next
    // process to finish; without a store it has no later and is dropped.
    await Promise.all(
      [...this.streams.values()].map((s) =>
        this.end(s, 'finished by Switchboard when the server stopped')
          .catch(() => (this.durable ? this.leave(s) : this.drop(s, 'the server stopped before it could be stored')))
          .catch(() => {}),
      ),
    );
    await this.statuses.close();
  }
}
