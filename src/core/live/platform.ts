// The platform half of a streamed message: its text put on the conversation's
// chat platform as it grows, through the surface's own streaming (start,
// append) or as a post kept up to date, one call at a time in the stream's
// chain. A platform's stream is settled into a plain post before the limits
// the platform puts on it (SurfaceOutbound.streamLimits), and once the
// platform ended it anyway; the post job later puts the stored text into
// whichever post it is.
import { isDeliveryError } from '../delivery/failure.ts';
import { pacedCall } from '../delivery/pacer.ts';
import { STREAM_ENDED, type SurfaceOutbound } from '../delivery/surface-outbound.ts';
import { RetryLater } from '../errors.ts';
import type { Conversation, LivePost } from '../messaging/message.ts';
import type { Clock } from '../ports.ts';
import { draftOf, outboundOf, type Stream } from './stream.ts';

/** Where a failed live update is noted (pino's logger fits). */
export interface LiveLogger {
  warn(facts: object, message: string): void;
}

/** The platform ended its stream itself (an expiry, a time limit, a person stopping it). */
const streamEnded = (e: unknown) =>
  isDeliveryError(e) && e.failure.kind === 'permanent' && e.failure.code === STREAM_ENDED;

/** Platform calls for streams; what they need of the live service comes in `hooks`. */
export class LivePosts {
  constructor(
    private readonly clock: Clock,
    private readonly logger: LiveLogger,
    private readonly hooks: {
      /** Queues the stream's next update (an interval later). */
      scheduleFlush(stream: Stream): void;
      /** Keeps the stream in the store as it is now. */
      keep(stream: Stream): Promise<void>;
    },
  ) {}

  /** Puts the text so far on the platform: the first time as a stream or a post, then as an append or an update. */
  async render(stream: Stream, port: SurfaceOutbound, text: string): Promise<void> {
    const key = port.paceKey(stream.conversation);
    if (!key) return;
    const draft = draftOf(stream, text);
    try {
      await pacedCall(port.pacer, key, async () => {
        const post = stream.post;
        if (!post) {
          const streamed = port.startStream ? await port.startStream(draft) : null;
          if (streamed) {
            stream.post = { kind: 'stream', externalId: streamed.externalId, permalink: streamed.permalink };
            stream.streamSince = streamed.startedAt?.getTime() ?? this.clock.now().getTime();
          } else {
            const posted = await port.post(outboundOf(draft, this.clock.now()));
            stream.post = { kind: 'post', externalId: posted.externalId, permalink: posted.permalink };
          }
        } else if (post.kind === 'stream' && port.appendStream) {
          await port.appendStream(draft, post.externalId, text.slice(stream.sent));
        } else {
          await port.update(outboundOf(draft, this.clock.now()), post.externalId);
        }
      });
      this.wentOut(stream, port, text);
    } catch (err) {
      // Ended by the platform before its time: what it showed becomes a plain post, kept up to date from now on.
      if (streamEnded(err) && stream.post?.kind === 'stream') return this.settle(stream, port);
      this.failed(stream, err, 'a live update was skipped');
    }
  }

  /** Notes text that reached the platform, and when its stream must be settled next. */
  private wentOut(stream: Stream, port: SurfaceOutbound, text: string) {
    stream.sent = text.length;
    stream.sequence += 1;
    stream.lastSent = this.clock.now().getTime();
    this.armSettle(stream, port);
  }

  /** A platform call of the stream failed: a refusal stops live updates (the post job posts the message); anything else waits for the next update. */
  private failed(stream: Stream, err: unknown, skipped: string): void {
    const failure = isDeliveryError(err) ? err.failure : null;
    if (!(err instanceof RetryLater) && (!failure || failure.kind === 'permanent')) stream.broken = true;
    // Busy, throttled or unreachable: this update is skipped, and another carries its text an interval later.
    if (!stream.broken) this.hooks.scheduleFlush(stream);
    if (err instanceof RetryLater) return;
    this.logger.warn(
      { err: failure ?? err, streamId: stream.id },
      stream.broken ? 'live updates of a stream stopped; its message is posted when it finishes' : skipped,
    );
  }

  /** Sets the timer that settles the platform's stream before the first of its limits (SurfaceOutbound.streamLimits). */
  armSettle(stream: Stream, port: SurfaceOutbound) {
    if (stream.settleTimer) clearTimeout(stream.settleTimer);
    stream.settleTimer = null;
    const limits = port.streamLimits;
    if (stream.post?.kind !== 'stream' || !limits || stream.finishing) return;
    const due = Math.min(
      limits.ageMs === undefined ? Number.POSITIVE_INFINITY : stream.streamSince + limits.ageMs,
      limits.idleMs === undefined ? Number.POSITIVE_INFINITY : stream.lastSent + limits.idleMs,
    );
    if (!Number.isFinite(due)) return;
    stream.settleTimer = setTimeout(
      () => {
        stream.settleTimer = null;
        stream.chain = stream.chain.then(async () => {
          // A finishing stream is settled by the post job with its stored text.
          if (!stream.finishing && stream.post?.kind === 'stream') await this.settle(stream, port);
        });
      },
      Math.max(0, due - this.clock.now().getTime()),
    );
    stream.settleTimer.unref?.();
  }

  /**
   * Ends the platform's stream of the draft with all its text so far, leaving a plain post that later updates
   * replace: before the platform's limits end it, or once it did. Runs in the stream's chain.
   */
  async settle(stream: Stream, port: SurfaceOutbound): Promise<void> {
    const post = stream.post;
    const key = port.paceKey(stream.conversation);
    if (post?.kind !== 'stream' || !key) return;
    if (!port.settleStream) {
      stream.broken = true;
      return;
    }
    const text = stream.text;
    try {
      const moved = await pacedCall(port.pacer, key, () => port.settleStream!(draftOf(stream, text), post.externalId));
      stream.post = {
        kind: 'post',
        externalId: moved?.externalId ?? post.externalId,
        permalink: moved?.permalink ?? post.permalink,
      };
      this.wentOut(stream, port, text);
      await this.hooks.keep(stream);
    } catch (err) {
      this.failed(stream, err, 'a stream could not be settled into a post yet; the next update tries again');
      // Not settled (busy, unreachable): tried again at the next update, as a stream the platform may have ended.
      if (!stream.broken) this.armSettle(stream, port);
    }
  }

  /** Removes a live post whose message was refused when it was stored, so the platform does not show what Switchboard never kept. */
  async withdraw(
    conversation: Conversation,
    port: SurfaceOutbound | null,
    post: LivePost | null,
    streamId: string,
  ): Promise<void> {
    if (!port || !post) return;
    try {
      await port.remove(conversation, post.externalId);
    } catch (err) {
      this.logger.warn(
        { err: isDeliveryError(err) ? err.failure : err, streamId },
        'could not remove the live post of a refused stream',
      );
    }
  }
}
