import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { inboxTopic } from '../core/messaging/messaging-service.ts';
import { label } from '../core/messaging/rules.ts';
import type { ToolContext } from './context.ts';
import { toRefusal } from './errors.ts';

/** The caller's inbox as a resource: reading it tells how many messages are unread. */
export const INBOX_URI = 'switchboard://inbox';

/**
 * Registers the inbox resource and `resources/subscribe` for it: a subscribed
 * client gets `notifications/resources/updated` whenever a message lands in the
 * caller's inbox (woken through the notifier, so also from other processes).
 */
export function registerInboxResource(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;
  server.registerResource(
    'inbox',
    INBOX_URI,
    {
      title: 'Your inbox',
      description: `Unread messages of ${label(agent)} in ${ws.slug}. Subscribe to be told when one arrives; read them with check_inbox.`,
      mimeType: 'application/json',
    },
    async (uri) => {
      let unread: number;
      let overheard: number;
      try {
        ({ addressed: unread, overheard } = await core.messaging.unreadCounts(agent, ws));
      } catch (e) {
        throw new McpError(ErrorCode.InvalidRequest, toRefusal(e, core.logger, 'resources/read').message);
      }
      // Overheard messages (heard as a channel's listener) are counted apart from those addressed to the agent.
      const text = JSON.stringify({
        agent: label(agent),
        workspace: ws.slug,
        unread,
        overheard,
        next: unread + overheard ? 'Call check_inbox to read them.' : 'Nothing unread.',
      });
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text }] };
    },
  );

  // One notifier subscription per session, however often the client subscribes.
  let subscription: Promise<() => Promise<void>> | null = null;
  const stop = async () => {
    const s = subscription;
    subscription = null;
    await (await s)?.();
  };
  server.server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    if (req.params.uri !== INBOX_URI)
      throw new McpError(ErrorCode.InvalidParams, `Only ${INBOX_URI} can be subscribed to.`);
    subscription ??= core.notifier.subscribe(inboxTopic(agent.id), () => {
      server.server
        .sendResourceUpdated({ uri: INBOX_URI })
        .catch((err) => core.logger.debug({ err }, 'could not send a resource update'));
    });
    await subscription;
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => {
    await stop();
    return {};
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void stop();
  };
}
