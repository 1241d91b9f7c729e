import { type McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
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
        throw new ProtocolError(ProtocolErrorCode.InvalidRequest, toRefusal(e, core.logger, 'resources/read').message);
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

  const updates = inboxUpdates(server, ctx);
  // A 2026-07-28 client on a lasting connection (stdio) asks through subscriptions/listen, which the SDK answers.
  if (ctx.pushInbox) void updates.start();
  server.server.setRequestHandler('resources/subscribe', async (req) => {
    if (req.params.uri !== INBOX_URI)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Only ${INBOX_URI} can be subscribed to.`);
    await updates.start();
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async () => {
    await updates.stop();
    return {};
  });
}

/**
 * Sends `notifications/resources/updated` for the inbox on this server's connection whenever a message lands in
 * the caller's inbox: on a session's stream once the client subscribes (before 2026-07-28), or on the listen stream
 * of a 2026-07-28 client over stdio (the SDK delivers it to the subscriptions that asked for the inbox, and to no
 * one else). One notifier subscription per server, however often it is started; it ends when the server closes.
 */
export function inboxUpdates(server: McpServer, { core, agent }: ToolContext) {
  let subscription: Promise<() => Promise<void>> | null = null;
  const stop = async () => {
    const s = subscription;
    subscription = null;
    await (await s)?.();
  };
  const previous = server.server.onclose;
  server.server.onclose = () => {
    previous?.();
    void stop();
  };
  return {
    start: async () => {
      subscription ??= core.notifier.subscribe(inboxTopic(agent.id), () => {
        server.server
          .sendResourceUpdated({ uri: INBOX_URI })
          .catch((err) => core.logger.debug({ err }, 'could not send a resource update'));
      });
      await subscription;
    },
    stop,
  };
}
