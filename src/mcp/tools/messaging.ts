import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { SendResult } from '../../core/messaging/messaging-service.ts';
import { mayMessage, label } from '../../core/messaging/rules.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { ToolContext } from '../context.ts';
import { tokenRotated, watchRevocation } from '../revocation.ts';
import { inboxItemOut, inboxText, searchHitOut, searchText } from '../render.ts';
import {
  checkInboxInput,
  inboxOutput,
  listAgentsInput,
  listAgentsOutput,
  searchInput,
  searchOutput,
  sendMessageInput,
  sendMessageOutput,
  subscribeInput,
  subscribeOutput,
} from './messaging-schemas.ts';
import { ok, recordAudit, runTool } from './run.ts';

/** Most directory entries written out in list_agents' text; the structured result has them all. */
const TEXT_LIST_MAX = 200;

/** The messaging tools: list_agents, send_message, check_inbox, subscribe, search_messages. */
export function registerMessagingTools(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;

  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description: 'The agents and people in this workspace you can see, and whether you may message each.',
      inputSchema: z.object(listAgentsInput),
      outputSchema: z.object(listAgentsOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'list_agents', async () => {
      const [me, directory] = await Promise.all([core.agents.member(agent, ws), core.agents.directory(ws)]);
      const agents = directory
        .filter((d) => d.agent.id !== agent.id)
        .map((d) => ({
          name: d.agent.name,
          person: d.agent.ownerHandle,
          display_name: d.agent.displayName,
          role: d.agent.roleLine,
          kind: d.agent.kind,
          address: d.agent.kind === 'person' ? d.agent.name : label(d.agent),
          may_message: mayMessage(me, d),
        }));
      const lines = agents
        .slice(0, TEXT_LIST_MAX)
        .map(
          (a) =>
            `- ${a.address} (${a.kind}, "${a.display_name}")${a.role ? `: ${a.role}` : ''}${a.may_message ? '' : ' [you may not message it]'}`,
        );
      if (agents.length > TEXT_LIST_MAX)
        lines.push(`…and ${agents.length - TEXT_LIST_MAX} more (all are in the structured result).`);
      const text = lines.length ? lines.join('\n') : 'Nobody else is in this workspace yet.';
      return ok({ you: label(agent), agents }, `You are ${label(agent)} in ${ws.slug}.\n${text}`);
    }),
  );

  server.registerTool(
    'send_message',
    {
      title: 'Send a message',
      description:
        'Send a message to agents or people (`to`), or reply in a conversation you received a message in (`conversation`). ' +
        'Agents receive it only when named; in a DM the other side always receives it.',
      inputSchema: z.object(sendMessageInput),
      outputSchema: z.object(sendMessageOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    runTool(
      ctx,
      'send_message',
      async (args) => {
        const r = await core.messaging.send({
          workspace: ws,
          sender: agent,
          to: args.to,
          conversationId: args.conversation,
          body: args.body,
          replyTo: args.reply_to,
          surface: 'mcp',
        });
        return reportSent(ctx, 'send_message', r, args.to?.join(', ') || args.conversation || null);
      },
      (args) => args.to?.join(', ') || args.conversation || null,
    ),
  );

  server.registerTool(
    'check_inbox',
    {
      title: 'Check inbox',
      description:
        'Your unread messages, oldest first; they are marked read. Says when it cut the list (`truncated`, `remaining`).',
      inputSchema: z.object(checkInboxInput),
      outputSchema: z.object(inboxOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    runTool(ctx, 'check_inbox', async (args, extra) => {
      const got = await core.messaging.checkInbox(agent, ws, args.limit);
      const messages = got.items.map(inboxItemOut);
      await handOver(
        ctx,
        'check_inbox',
        messages.map((m) => m.id),
        extra.mcpReq.signal,
      );
      return ok(
        { messages, truncated: got.remaining > 0, remaining: got.remaining, overheard: overheardCount(messages) },
        inboxText(messages, got.remaining, 'No unread messages.'),
      );
    }),
  );

  server.registerTool(
    'subscribe',
    {
      title: 'Wait for messages',
      description:
        'Waits for new messages and returns them like check_inbox. Returns at once when some are unread; ' +
        'otherwise waits up to `timeout_seconds` (under 60). Call it again after a timeout to keep listening.',
      inputSchema: z.object(subscribeInput),
      outputSchema: z.object(subscribeOutput),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    runTool(ctx, 'subscribe', async (args, extra) => {
      const watch = await watchRevocation(ctx, extra.mcpReq.signal);
      let got;
      try {
        if (watch.revoked()) throw tokenRotated();
        got = await core.messaging.waitForInbox(
          agent,
          ws,
          args.limit,
          Math.round(args.timeout_seconds * 1000),
          watch.signal,
        );
      } finally {
        await watch.stop();
      }
      // Messages taken before the rotation was seen are already marked read: hand them over rather than lose them.
      if (watch.revoked() && !got.items.length) throw tokenRotated();
      const messages = got.items.map(inboxItemOut);
      await handOver(
        ctx,
        'subscribe',
        messages.map((m) => m.id),
        extra.mcpReq.signal,
      );
      const empty = `No new messages in ${args.timeout_seconds} seconds; call subscribe again to keep waiting.`;
      return ok(
        {
          messages,
          truncated: got.remaining > 0,
          remaining: got.remaining,
          overheard: overheardCount(messages),
          timed_out: got.timedOut,
        },
        inboxText(messages, got.remaining, empty),
      );
    }),
  );

  server.registerTool(
    'search_messages',
    {
      title: 'Search messages',
      description:
        "Full-text search, best match first, over the messages you sent or received (every message in the workspace if you monitor it), within the plan's history.",
      inputSchema: z.object(searchInput),
      outputSchema: z.object(searchOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'search_messages', async (args) => {
      const hits = await core.messaging.search(agent, ws, {
        text: args.query,
        from: args.from,
        conversationId: args.conversation,
        since: args.since ? new Date(args.since) : undefined,
        limit: args.limit,
      });
      const results = hits.map(searchHitOut);
      return ok({ results }, searchText(results));
    }),
  );
}

/** The result of a stored message (send_message, finish_message): audited, with each recipient's outcome. */
export async function reportSent(
  ctx: ToolContext,
  action: string,
  r: SendResult,
  target: string | null,
): Promise<CallToolResult> {
  const recipients = r.recipients.map((x) => ({
    to: x.to,
    status: x.status,
    ...(x.reason ? { reason: x.reason, rule: x.rule } : {}),
  }));
  const out = { message_id: r.message?.id ?? null, conversation_id: r.conversation?.id ?? null, recipients };
  await recordAudit(ctx, action, {
    target,
    result: r.message ? (recipients.some((x) => x.status === 'refused') ? 'partly delivered' : 'sent') : 'refused',
    details: { message_id: out.message_id, conversation_id: out.conversation_id, recipients },
    onBehalfOf: r.message?.askerPersonId ?? ctx.agent.ownerId,
  });
  const lines = recipients.map((x) => `- ${x.to}: ${x.status}${x.reason ? ` (${x.reason})` : ''}`);
  if (!r.message) return { ...ok(out, ['Nothing was sent:', ...lines].join('\n')), isError: true };
  const head = `Sent message ${r.message.id} in conversation ${out.conversation_id}.`;
  return ok(out, lines.length ? [head, ...lines].join('\n') : head);
}
const overheardCount = (messages: Array<{ overheard: boolean }>) => messages.filter((m) => m.overheard).length;

/** Reading marks messages read, which changes state, so it is audited when something was read. */
/**
 * Records the messages a take read, as the last step before they are returned. A request cancelled by then (the
 * client cancelled it, or closed its connection: mcp/http.ts) gets no answer — the SDK drops it — so what the take
 * marked read goes back unread rather than being lost.
 */
async function handOver(ctx: ToolContext, action: string, ids: string[], signal: AbortSignal) {
  if (!ids.length) return;
  if (!signal.aborted)
    await recordAudit(ctx, action, {
      target: `${ids.length} message${ids.length === 1 ? '' : 's'}`,
      result: 'read',
      details: { message_ids: ids },
      onBehalfOf: ctx.agent.ownerId,
    });
  if (!signal.aborted) return;
  await ctx.core.messaging.returnUnread(ctx.agent, ctx.workspace, ids);
  throw new SwitchboardError(
    'UNAVAILABLE',
    'The request was cancelled before its answer left, so the messages it took are unread again; ask again.',
  );
}
