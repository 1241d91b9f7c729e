import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ToolContext } from '../context.ts';
import {
  appendMessageInput,
  appendMessageOutput,
  finishMessageInput,
  finishMessageOutput,
  setStatusInput,
  setStatusOutput,
  startMessageInput,
  startMessageOutput,
} from './live-schemas.ts';
import { reportSent } from './messaging.ts';
import { ok, recordAudit, runTool } from './run.ts';

/** The tools that show an agent at work: set_status, and a message streamed with start_message, append_message, finish_message. */
export function registerLiveTools(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;
  // A session that ends (the agent stopped or failed) takes its statuses with it. A 2026-07-28 client has no
  // session (its server lasts one request): its statuses clear when it answers, or after two minutes.
  if (ctx.era !== 'modern') {
    const previous = server.server.onclose;
    server.server.onclose = () => {
      previous?.();
      void core.live
        .forgetAgent(agent.id)
        .catch((err: unknown) => core.logger.warn({ err }, 'could not clear the statuses of a closed session'));
    };
  }

  server.registerTool(
    'set_status',
    {
      title: 'Show what you are doing',
      description:
        'Shows a short status in a conversation while you work on an answer ("is thinking…", "is reading the logs…"): ' +
        'Slack shows it in its assistant threads, Teams in personal chats, the web chat as a progress line. ' +
        'Empty text clears it; it also clears when you answer there, when your session ends, and after two minutes.',
      inputSchema: z.object(setStatusInput),
      outputSchema: z.object(setStatusOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    },
    runTool(ctx, 'set_status', async (args) => {
      const r = await core.live.setStatus(ws, agent, args.conversation, args.text ?? null);
      const status = args.text?.trim() || null;
      const out = { conversation_id: r.conversation.id, status, shown_on_platform: r.platform };
      return ok(
        out,
        status
          ? `Status "${status}" shown in conversation ${r.conversation.id}.`
          : `Status cleared in conversation ${r.conversation.id}.`,
      );
    }),
  );

  server.registerTool(
    'start_message',
    {
      title: 'Start a streamed message',
      description:
        'Starts a message that people watch being written: add text with append_message, end with finish_message, which stores it once ' +
        'like send_message. Takes `to` and/or `conversation` like send_message and is checked the same way now and when it finishes. ' +
        'A stream left without an append for two minutes is finished with what it has.',
      inputSchema: z.object(startMessageInput),
      outputSchema: z.object(startMessageOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool(
      ctx,
      'start_message',
      async (args) => {
        const r = await core.live.start({
          workspace: ws,
          sender: agent,
          to: args.to,
          conversationId: args.conversation,
          replyTo: args.reply_to,
          surface: 'mcp',
          text: args.text,
        });
        const recipients = r.recipients.map((x) => ({
          to: x.to,
          status: x.status,
          ...(x.reason ? { reason: x.reason, rule: x.rule } : {}),
        }));
        const out = { stream_id: r.streamId, conversation_id: r.conversation.id, recipients };
        await recordAudit(ctx, 'start_message', {
          target: args.to?.join(', ') || args.conversation || null,
          result: 'started',
          details: out,
          onBehalfOf: agent.ownerId,
        });
        return ok(
          out,
          `Started stream ${r.streamId} in conversation ${r.conversation.id}; add text with append_message and end it with finish_message.`,
        );
      },
      (args) => args.to?.join(', ') || args.conversation || null,
    ),
  );

  server.registerTool(
    'append_message',
    {
      title: 'Add to a streamed message',
      description:
        'Adds text to the end of a message started with start_message; readers see it within about a second.',
      inputSchema: z.object(appendMessageInput),
      outputSchema: z.object(appendMessageOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool(ctx, 'append_message', async (args) => {
      const r = await core.live.append(ws, agent, args.stream_id, args.text);
      return ok(
        { stream_id: args.stream_id, length: r.length },
        `Stream ${args.stream_id} holds ${r.length} characters.`,
      );
    }),
  );

  server.registerTool(
    'finish_message',
    {
      title: 'Finish a streamed message',
      description:
        'Ends a message started with start_message: adds `text` if given, stores the whole message once and shows it as final. ' +
        "Answers like send_message. Refused by the rate limit or an outage, the stream stays open without this call's text: make the same call again later; any other refusal ends it.",
      inputSchema: z.object(finishMessageInput),
      outputSchema: z.object(finishMessageOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool(
      ctx,
      'finish_message',
      async (args) => {
        const r = await core.live.finish(ws, agent, args.stream_id, args.text);
        return reportSent(ctx, 'finish_message', r, args.stream_id);
      },
      (args) => args.stream_id,
    ),
  );
}
