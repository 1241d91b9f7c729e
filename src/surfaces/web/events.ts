import type { Request, RequestHandler, Response } from 'express';
import type { Viewer } from '../../core/channels/access.ts';
import {
  chatPersonTopic,
  chatWorkspaceTopic,
  MESSAGE_CHANGED,
  MESSAGE_DELETED,
  SESSIONS_CHANGED,
} from '../../core/channels/changes.ts';
import { isSwitchboardError } from '../../core/errors.ts';
import { LIVE_PAYLOAD } from '../../core/live/live-service.ts';
import { conversationTopic, inboxTopic } from '../../core/messaging/messaging-service.ts';
import { RECHECK } from '../../core/ports.ts';
import { APPROVAL_PAYLOAD } from './pages/approval-cards.ts';
import type { WebChat } from './context.ts';

const REMEMBERED = 500;
const UUID = /^[0-9a-f-]{36}$/i;

/**
 * Server-sent events for one person in one workspace. It listens (through the
 * notifier, so also to other processes) on every conversation the person can
 * see and on their inbox, and pushes each new message they may read:
 * `message` (the message and its conversation), `sidebar` (a channel or DM
 * appeared: refetch the sidebar), `inbox` (something arrived for them),
 * `approval` (an approval card they may see was asked or settled), `channel` (the
 * listeners or bridges of a channel they may see changed), `live` (an
 * agent's status or the message it is streaming, see core/live), `changed`
 * (a message's text or reactions changed: the message as they see it now),
 * `deleted` (a message went: its id and conversation) and `resync`
 * (wake-ups may have been missed while the database's notification connection
 * was down: reload what the page shows, the open conversation included).
 */
export function eventStream({ core, http, chat, cards, settings }: WebChat): RequestHandler {
  const { channels, notifier } = core;
  // Every stream this handler opened ends on shutdown; browsers reconnect to the next server.
  const open = new Set<Response>();
  core.onDrain(() => {
    for (const res of open) res.end();
    open.clear();
  });
  return async (req: Request, res: Response) => {
    const v = res.locals.viewer as Viewer;
    // When the session ends unless used again, from what the opening request saw; the stream's own traffic is no use.
    let endsAt = http.sessionEndsAt(http.authOf(res)!.session);
    const unsubscribers: Array<() => Promise<void>> = [];
    const watching = new Set<string>();
    const sent = new Set<string>();
    let closed = false;
    let chain = Promise.resolve();

    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write('retry: 3000\n\n');
    const emit = (event: string, data: unknown) => {
      if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    // Events are handled one at a time so messages reach the browser in the order they were published.
    const enqueue = (fn: () => Promise<void>) => {
      chain = chain.then(fn).catch((err) => core.logger.warn({ err }, 'web chat event could not be delivered'));
    };

    const pushMessage = async (messageId: string, notifyInbox: boolean) => {
      // An approval asked or settled here or for this person: `approval` carries its card as this person sees it.
      if (messageId.startsWith(APPROVAL_PAYLOAD)) {
        const card = await cards.forPayload(v, messageId);
        if (card) emit('approval', card);
        if (notifyInbox) emit('inbox', {});
        return;
      }
      // An agent's status or streamed draft in a conversation this person watches (so may read).
      if (messageId.startsWith(LIVE_PAYLOAD)) {
        emit('live', JSON.parse(messageId.slice(LIVE_PAYLOAD.length)));
        return;
      }
      if (sent.has(messageId)) return;
      const found = UUID.test(messageId) ? await chat.message(v, messageId) : null;
      if (found) {
        sent.add(messageId);
        if (sent.size > REMEMBERED) sent.delete(sent.values().next().value!);
        if (!watching.has(found.conversation.id)) {
          await watch(found.conversation.id);
          emit('sidebar', {});
        }
        emit('message', found);
      }
      if (notifyInbox) emit('inbox', {});
    };

    // The notifier wakes every topic at once after a gap; the page is told once.
    let resyncing = false;
    const resync = () => {
      if (resyncing) return;
      resyncing = true;
      // A sign-out's wake-up may be among those missed.
      enqueue(async () => {
        resyncing = false;
        await recheck(true);
        emit('resync', {});
      });
    };

    // On a conversation's topic: a new message's id, or a change to one shown before (core/channels/changes.ts).
    const onConversation = async (conversationId: string, payload: string) => {
      if (payload.startsWith(MESSAGE_DELETED)) {
        const id = payload.slice(MESSAGE_DELETED.length);
        if (UUID.test(id)) emit('deleted', { id, conversationId });
      } else if (payload.startsWith(MESSAGE_CHANGED)) {
        const found = await chat.message(v, payload.slice(MESSAGE_CHANGED.length));
        if (found) emit('changed', found);
      } else {
        await pushMessage(payload, false);
      }
    };

    // A subscription that finishes after the browser left is undone at once.
    const listen = async (topic: string, fn: (payload: string) => Promise<void>) => {
      const unsubscribe = await notifier.subscribe(topic, (payload) =>
        payload === RECHECK ? resync() : enqueue(() => fn(payload)),
      );
      if (closed) await unsubscribe();
      else unsubscribers.push(unsubscribe);
    };
    const watch = async (conversationId: string) => {
      if (watching.has(conversationId) || closed) return;
      watching.add(conversationId);
      await listen(conversationTopic(conversationId), (payload) => onConversation(conversationId, payload));
    };

    const stop = async () => {
      if (closed) return;
      closed = true;
      clearInterval(keepalive);
      open.delete(res);
      await Promise.all(unsubscribers.splice(0).map((u) => u().catch(() => {})));
    };
    // The stream outlives the request that opened it: the session is looked up again when the person's sessions change
    // (signing out, a password change) or its end passes, never counting as use, so an idle tab lets it expire; the
    // access is checked with every keepalive (removed from the organization or the workspace). The stream ends when
    // the session or the access has; the browser's reconnection is then answered 401. An outage keeps it open.
    const recheck = async (session: boolean) => {
      try {
        const auth = session ? await http.recheckSession(req) : null;
        if (auth) endsAt = http.sessionEndsAt(auth.session);
        if ((!session || auth?.person.id === v.person.id) && (await chat.viewer(v.person.id, v.workspace.id))) return;
      } catch (err) {
        if (!isSwitchboardError(err) || err.code === 'UNAVAILABLE') return;
      }
      await stop();
      res.end();
    };
    const keepalive = setInterval(
      () =>
        enqueue(async () => {
          await recheck(endsAt <= core.clock.now().getTime());
          if (!closed) res.write(': keepalive\n\n');
        }),
      settings.keepaliveMs,
    );
    open.add(res);
    req.on('close', () => {
      void stop();
    });

    try {
      await listen(inboxTopic(v.agent.id), (id) => pushMessage(id, true));
      // A channel or thread appeared in the workspace: follow it if this person may see it.
      await listen(chatWorkspaceTopic(v.workspace.id), async (payload) => {
        const [kind, id] = payload.split(':');
        const c = await channels.visibleConversation(v, id);
        if (!c) return;
        // Its listeners or bridges changed: the page redraws the channel's header if it shows it.
        if (kind === 'settings') {
          emit('channel', { id: c.id });
          return;
        }
        await watch(c.id);
        if (kind === 'channel') emit('sidebar', {});
      });
      // The person joined a channel or opened a DM (perhaps in another workspace, or another tab).
      await listen(chatPersonTopic(v.person.id), async (id) => {
        if (id === SESSIONS_CHANGED) return recheck(true);
        if (!(await channels.conversationIn(v.workspace.id, id))) return;
        await watch(id);
        emit('sidebar', {});
      });
      for (const id of await chat.watched(v)) await watch(id);
      emit('ready', { watching: watching.size });
    } catch (err) {
      core.logger.error({ err }, 'web chat event stream failed to start');
      await stop();
      res.end();
    }
  };
}
