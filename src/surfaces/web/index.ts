// The web chat: Switchboard's own chat surface. Its posts live in Switchboard
// (there is no outbound to a platform); what people write goes through the one
// inbound pipeline as the web chat's port names it. Its routes are the chat
// page at `/`, its JSON API and event stream under `/api/chat`, its browser
// code and styles under `/assets`, and the sign-in pages.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { chatPersonTopic, chatWorkspaceTopic, SESSIONS_CHANGED } from '../../core/channels/changes.ts';
import { conversationTopic } from '../../core/messaging/messaging-service.ts';
import { WEB_CHAT, type Workspace } from '../../core/entities.ts';
import { messageHtml } from '../../http/message-html.ts';
import type { ChatSurface, SurfaceCore, SurfaceFactory } from '../contract.ts';
import { chatApi } from './api.ts';
import { ApprovalCards } from './pages/approval-cards.ts';
import { serveClientBundle } from './bundle.ts';
import type { WebChat, WebPages } from './context.ts';
import { AgentsPage } from './pages/agents-page.ts';
import { ChatService } from './pages/chat-service.ts';
import { IntakePage } from './pages/intake-page.ts';
import { webPort } from './port.ts';
import { type WebSettings, webSettings } from './settings.ts';
import { chatShell } from './shell.ts';

const PUBLIC_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'public');

/** The web chat of a running app: the contract's parts, and its page services. */
export interface WebSurface extends ChatSurface, WebPages {
  readonly name: typeof WEB_CHAT;
  readonly settings: WebSettings;
}

/** Builds the web chat (always: it needs no credentials); createApp calls it in every process. */
export const createWebSurface: SurfaceFactory<Partial<WebSettings>, unknown> = (core, { override }) => {
  const settings = webSettings(core.config, override);
  const pages = webPages(core, settings);
  announceChannelChanges(core);
  return {
    name: WEB_CHAT,
    label: 'web chat',
    configured: true,
    howToTurnOn: 'The web chat is always on.',
    jobs: {},
    settings,
    ...pages,
    mount(web, http) {
      const w: WebChat = { ...pages, core, http, settings };
      web.get('/assets/app.js', serveClientBundle(core.logger));
      web.use(
        '/assets',
        express.static(PUBLIC_DIR, {
          index: false,
          setHeaders: (res) => {
            res.setHeader('cache-control', 'no-cache');
            res.setHeader('x-content-type-options', 'nosniff');
          },
        }),
        (_req, res) => {
          res.status(404).type('text').send('No such file.');
        },
      );
      web.use(http.signinRoutes(settings.signinLimits));
      // Under /api/chat so it never shadows other /api routes (Teams posts to /api/messages).
      web.use('/api/chat', chatApi(w));
      web.get('/', http.requirePerson({ page: true }), async (req, res) => {
        const { person } = http.authOf(res)!;
        const workspaces = await core.orgs.workspacesOf(person.id);
        http.securityHeaders(res);
        const user = { displayName: person.displayName, handle: person.handle, csrfField: http.csrfField(req, res) };
        res.type('html').send(chatShell({ csrf: http.csrfToken(req, res), user, workspaces }));
      });
    },
  } satisfies WebSurface;
};

/** The page services over the core's (they keep no state of their own). */
function webPages(core: SurfaceCore, settings: WebSettings): WebPages {
  const { channels, agents, orgs, clock } = core;
  const deps = { orgs, channels, clock, publicUrl: settings.publicUrl };
  const port = (ws: Workspace) => webPort(deps, ws);
  const sources = {
    agent: (id: string) => agents.get(id),
    identity: (id: string) => core.identities.get(id),
    reactions: (workspaceId: string, messageIds: string[]) => channels.reactionsOf(workspaceId, messageIds),
  };
  return {
    chat: new ChatService(channels, sources, messageHtml, port),
    agentsPage: new AgentsPage(agents, clock),
    intakePage: new IntakePage(channels, core.intake, agents, core.identities, core.listening.places),
    cards: new ApprovalCards(core),
  };
}

/**
 * Tells open web chats (in any process) what changed around them: a channel's listeners or bridges (its header is
 * redrawn), a note Switchboard wrote about listening in a bridged channel (shown like any new message), and a person
 * taken out of an organization (their event streams check their session and access at once, as after signing out).
 */
function announceChannelChanges(core: SurfaceCore): void {
  const { notifier, logger } = core;
  const settingsChanged = (workspaceId: string, channelId: string) => {
    notifier
      .publish(chatWorkspaceTopic(workspaceId), `settings:${channelId}`)
      .catch((err) => logger.warn({ err }, "could not announce a channel's new settings"));
  };
  core.listening.onChange((ws, place, note) => {
    if (place.surface === WEB_CHAT) settingsChanged(ws.id, place.channelId);
    if (note)
      notifier
        .publish(conversationTopic(note.conversationId), note.id)
        .catch((err) => logger.warn({ err }, 'could not announce a listening note'));
  });
  core.bridges.onChange((ws, channelId) => settingsChanged(ws.id, channelId));
  core.orgs.onPersonRemoved((_org, person) =>
    notifier
      .publish(chatPersonTopic(person.id), SESSIONS_CHANGED)
      .catch((err) =>
        logger.warn({ err }, "could not tell a removed person's open event streams; they end at their next keepalive"),
      ),
  );
}

/** The web chat's page services of a running app (every app builds the web chat); tests and the demo seed use them. */
export function chatOf(app: { surfaceModules: ReadonlyMap<string, ChatSurface> }): WebPages {
  const web = app.surfaceModules.get(WEB_CHAT) as WebSurface | undefined;
  if (!web) throw new Error('This app has no web chat: createApp builds it with every other surface.');
  return web;
}
