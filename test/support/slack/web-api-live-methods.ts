// The stand-in's AI-app methods: assistant threads (status, title, suggested
// prompts) and streamed messages (chat.startStream, appendStream, stopStream),
// with the argument checks and error codes Slack documents for them. As Slack
// does, a streamed message shows under the app's name and icon whatever
// username/icon_url say, and a stream left without an append for a while
// (SlackState.streamIdleMs) ends: appends and stopStream are then answered
// message_not_in_streaming_state.
import {
  authoredByBot,
  CHANNEL_ID,
  fail,
  resolveChannel,
  str,
  type Args,
  type MethodContext,
  type MethodHandler,
  type SlackResult,
} from './web-api-methods.ts';

/** The longest markdown_text Slack accepts in one streaming call. */
export const MAX_STREAM_MARKDOWN = 12_000;
const MAX_PROMPTS = 4;

const missing = (field: string): SlackResult =>
  fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] missing required field: ${field}`] } });

/**
 * assistant:* methods need the assistant:write scope, and work only in the app's DMs (assistant threads). Suggested
 * prompts may leave out the thread: they are then set on the DM itself (`onDm`), as an agent_view app sets them.
 */
function assistantThread({ args, identity, state }: MethodContext, onDm = false): { key: string } | SlackResult {
  const scopes = identity!.scope.split(',');
  if (!scopes.includes('assistant:write'))
    return fail('missing_scope', { needed: 'assistant:write', provided: identity!.scope });
  const channel = str(args.channel_id);
  if (!channel) return missing('channel_id');
  if (!CHANNEL_ID.test(channel)) return fail('channel_not_found');
  if (!channel.startsWith('D')) return fail('not_allowed');
  const threadTs = str(args.thread_ts);
  if (!threadTs && !onDm) return missing('thread_ts');
  const key = threadTs ? `${channel}:${threadTs}` : channel;
  if (!state.assistantThreads.has(key)) state.assistantThreads.set(key, { statuses: [] });
  return { key };
}

const isFailure = (r: unknown): r is SlackResult => typeof r === 'object' && r !== null && 'ok' in r;

/** The bot's streaming message in a channel, or Slack's error for it. */
function streaming({ args, identity, state }: MethodContext): { channel: string; ts: string } | SlackResult {
  const channel = resolveChannel(str(args.channel));
  if (!channel) return fail('channel_not_found');
  const ts = str(args.ts);
  if (!ts) return missing('ts');
  const existing = state.message(channel, ts);
  if (!existing) return fail('message_not_found');
  if (existing.bot_id !== identity!.botId) return fail('cant_update_message');
  if (existing.streaming !== true) return fail('message_not_in_streaming_state');
  return { channel, ts };
}

function tooLong(args: Args): boolean {
  return (str(args.markdown_text) ?? '').length > MAX_STREAM_MARKDOWN;
}

export const LIVE_METHODS: Record<string, MethodHandler> = {
  'assistant.threads.setStatus': (ctx) => {
    const thread = assistantThread(ctx);
    if (isFailure(thread)) return thread;
    // An empty status is allowed: it clears the line.
    if (ctx.args.status === undefined) return missing('status');
    const entry = ctx.state.assistantThreads.get(thread.key)!;
    entry.status = str(ctx.args.status) ?? '';
    entry.statuses.push(entry.status);
    return { ok: true };
  },

  'assistant.threads.setTitle': (ctx) => {
    const thread = assistantThread(ctx);
    if (isFailure(thread)) return thread;
    const title = str(ctx.args.title);
    if (!title) return missing('title');
    ctx.state.assistantThreads.get(thread.key)!.title = title;
    return { ok: true };
  },

  'assistant.threads.setSuggestedPrompts': (ctx) => {
    const thread = assistantThread(ctx, true);
    if (isFailure(thread)) return thread;
    const prompts = ctx.args.prompts;
    if (!Array.isArray(prompts) || prompts.length === 0) return missing('prompts');
    if (prompts.length > MAX_PROMPTS)
      return fail('invalid_arguments', {
        response_metadata: { messages: [`[ERROR] no more than ${MAX_PROMPTS} items allowed [json-pointer:/prompts]`] },
      });
    if (
      prompts.some(
        (p: { title?: unknown; message?: unknown }) =>
          typeof p?.title !== 'string' || typeof p?.message !== 'string' || !p.title || !p.message,
      )
    ) {
      return fail('invalid_arguments', {
        response_metadata: { messages: ['[ERROR] each prompt needs a title and a message [json-pointer:/prompts]'] },
      });
    }
    const entry = ctx.state.assistantThreads.get(thread.key)!;
    entry.prompts = prompts as Array<{ title: string; message: string }>;
    entry.promptsTitle = str(ctx.args.title);
    return { ok: true };
  },

  // A streaming message: in a DM it needs only the thread; elsewhere Slack also needs whom it streams to.
  'chat.startStream': ({ args, identity, state }) => {
    const channel = resolveChannel(str(args.channel));
    if (!channel) return fail('channel_not_found');
    const threadTs = str(args.thread_ts);
    if (!threadTs) return missing('thread_ts');
    if (!channel.startsWith('D') && (!str(args.recipient_team_id) || !str(args.recipient_user_id)))
      return missing('recipient_user_id');
    if (tooLong(args)) return fail('msg_too_long');
    const { username: _u, icon_url: _i, icon_emoji: _e, ...shown } = args;
    const message = authoredByBot(identity!, { ...shown, text: str(args.markdown_text) ?? '' }, state.nextTs());
    message.thread_ts = threadTs;
    message.streaming = true;
    state.storeMessage(channel, message);
    state.touchStream(channel, message.ts);
    return { ok: true, channel, ts: message.ts };
  },

  'chat.appendStream': (ctx) => {
    const target = streaming(ctx);
    if (isFailure(target)) return target;
    const text = str(ctx.args.markdown_text);
    if (!text && !ctx.args.chunks) return missing('markdown_text');
    if (tooLong(ctx.args)) return fail('msg_too_long');
    const message = ctx.state.message(target.channel, target.ts)!;
    message.text = `${message.text ?? ''}${text ?? ''}`;
    ctx.state.touchStream(target.channel, target.ts);
    return { ok: true, channel: target.channel, ts: target.ts };
  },

  'chat.stopStream': (ctx) => {
    const target = streaming(ctx);
    if (isFailure(target)) return target;
    if (tooLong(ctx.args)) return fail('msg_too_long');
    const message = ctx.state.message(target.channel, target.ts)!;
    message.text = `${message.text ?? ''}${str(ctx.args.markdown_text) ?? ''}`;
    message.streaming = false;
    for (const key of ['blocks', 'metadata'] as const) if (ctx.args[key] !== undefined) message[key] = ctx.args[key];
    return { ok: true, channel: target.channel, ts: target.ts, message };
  },
};
