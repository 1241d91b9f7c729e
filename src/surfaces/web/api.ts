import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { Viewer } from '../../core/channels/access.ts';
import { EMOJI_NAME } from '../../core/channels/emoji.ts';
import { MAX_BODY_CHARS } from '../../core/messaging/rules.ts';
import { parseInput } from '../../http/input.ts';
import { approvalRoutes } from './approvals-api.ts';
import type { WebChat } from './context.ts';
import { eventStream } from './events.ts';
import { intakeRoutes } from './intake-api.ts';
import { mcpClientConfig } from './mcp-config.ts';
import { channelSettingsRoutes, noticeRoutes } from './settings-api.ts';

const parse = parseInput;

// Bounds the inbox's offset (500,000 items), so no number in an address reaches the database as an absurd one.
const MAX_INBOX_PAGE = 10_000;
const INBOX_PAGE_RULE = `must be a whole number from 1 to ${MAX_INBOX_PAGE} (1 is the newest page)`;
const id = z.string().uuid({ message: 'must be an id taken from the chat' });
const schemas = {
  channel: z.object({
    name: z.string().min(1, 'give the channel a name').max(41),
    restricted: z.boolean().optional(),
    description: z.string().max(250).optional(),
  }),
  member: z.object({ handle: z.string().min(1).max(64) }),
  dm: z.object({ agentId: id }),
  post: z.object({
    body: z
      .string()
      .trim()
      .min(1, 'write something to send')
      .max(MAX_BODY_CHARS, `a message holds at most ${MAX_BODY_CHARS} characters`),
  }),
  emoji: z.string().regex(EMOJI_NAME, 'must be an emoji short name such as thumbsup'),
  search: z.object({ q: z.string().trim().min(1, 'type something to search for').max(200) }),
  // A page number from the address (`#/w/<ws>/inbox?page=2`); absent or empty is the newest page.
  inbox: z.object({
    page: z.preprocess(
      (x) => (x === '' ? undefined : x),
      z.coerce
        .number({ error: INBOX_PAGE_RULE })
        .int(INBOX_PAGE_RULE)
        .min(1, INBOX_PAGE_RULE)
        .max(MAX_INBOX_PAGE, INBOX_PAGE_RULE)
        .default(1),
    ),
  }),
  agent: z.object({
    name: z.string().min(1).max(39),
    displayName: z
      .string()
      .trim()
      .max(80)
      .optional()
      .transform((s) => s || undefined),
    roleLine: z
      .string()
      .trim()
      .max(140)
      .optional()
      .transform((s) => s || undefined),
    avatarUrl: z
      .string()
      .trim()
      .max(500)
      .optional()
      .transform((s) => s || undefined),
  }),
};

const viewerOf = (res: Response) => res.locals.viewer as Viewer;

/** The web chat's JSON API and event stream, under /api/chat. Every route needs a session; every change needs the CSRF token. */
export function chatApi(w: WebChat): Router {
  const { chat, agentsPage, core, http, settings } = w;
  const api = express.Router();
  api.use(express.json({ limit: '64kb' }), http.requirePerson(), http.requireCsrf());
  const config = (v: Viewer, name: string, token: string) =>
    mcpClientConfig(settings.publicUrl, v.workspace.slug, name, token);

  api.get('/me', async (req, res) => {
    const { person } = http.authOf(res)!;
    const [workspaces, hasPassword] = await Promise.all([
      core.orgs.workspacesOf(person.id),
      core.orgs.hasPassword(person.id),
    ]);
    res.json({
      person: { id: person.id, handle: person.handle, displayName: person.displayName },
      hasPassword,
      workspaces: workspaces.map((w) => ({ slug: w.slug, name: w.name, role: w.role })),
      csrf: http.csrfToken(req, res),
    });
  });

  api.use(noticeRoutes(w));

  // Everything below acts in one workspace the person can reach.
  const ws = express.Router({ mergeParams: true });
  api.use('/w/:workspace', ws);
  ws.use(async (req: Request, res, next) => {
    res.locals.viewer = await chat.viewer(http.authOf(res)!.person.id, String(req.params.workspace));
    next();
  });

  ws.get('/sidebar', async (_req, res) => {
    res.json(await chat.sidebar(viewerOf(res)));
  });
  ws.get('/events', eventStream(w));
  ws.use(approvalRoutes(w));
  ws.use(channelSettingsRoutes(w));
  ws.use(intakeRoutes(w));

  ws.post('/channels', async (req, res) => {
    const ch = await chat.createChannel(viewerOf(res), parse(schemas.channel, req.body));
    res.status(201).json({ channel: { id: ch.conversationId, name: ch.name, restricted: ch.restricted } });
  });
  ws.post('/channels/:id/join', async (req, res) => {
    const ch = await chat.join(viewerOf(res), parse(id, req.params.id));
    res.json({ channel: { id: ch.conversationId, name: ch.name } });
  });
  ws.post('/channels/:id/leave', async (req, res) => {
    await chat.leave(viewerOf(res), parse(id, req.params.id));
    res.json({ ok: true });
  });
  ws.post('/channels/:id/members', async (req, res) => {
    const r = await chat.addMember(viewerOf(res), parse(id, req.params.id), parse(schemas.member, req.body).handle);
    res.json({ added: r.person.handle, channel: r.channel.name });
  });

  ws.post('/dms', async (req, res) => {
    const c = await chat.openDm(viewerOf(res), parse(schemas.dm, req.body).agentId);
    res.json({ conversation: { id: c.id } });
  });
  ws.post('/messages/:id/thread', async (req, res) => {
    const c = await chat.openThread(viewerOf(res), parse(id, req.params.id));
    res.json({ conversation: { id: c.id } });
  });

  ws.get('/conversations/:id', async (req, res) => {
    res.json(await chat.history(viewerOf(res), parse(id, req.params.id)));
  });
  ws.post('/conversations/:id/messages', async (req, res) => {
    const r = await chat.post(viewerOf(res), parse(id, req.params.id), parse(schemas.post, req.body).body);
    res.status(r.message ? 201 : 200).json(r);
  });
  ws.patch('/messages/:id', async (req, res) => {
    res.json({ message: await chat.edit(viewerOf(res), parse(id, req.params.id), parse(schemas.post, req.body).body) });
  });
  ws.delete('/messages/:id', async (req, res) => {
    await chat.remove(viewerOf(res), parse(id, req.params.id));
    res.json({ ok: true });
  });
  ws.post('/messages/:id/reactions', async (req, res) => {
    const { emoji } = parse(z.object({ emoji: schemas.emoji }), req.body);
    res.json({ reactions: await chat.reactions.set(viewerOf(res), parse(id, req.params.id), emoji, true) });
  });
  ws.delete('/messages/:id/reactions/:emoji', async (req, res) => {
    res.json({
      reactions: await chat.reactions.set(
        viewerOf(res),
        parse(id, req.params.id),
        parse(schemas.emoji, req.params.emoji),
        false,
      ),
    });
  });
  ws.post('/conversations/:id/read', async (req, res) => {
    const v = viewerOf(res);
    const c = await chat.access.conversation(v, parse(id, req.params.id));
    await chat.access.markRead(v, c.id);
    res.json({ ok: true });
  });

  ws.get('/inbox', async (req, res) => {
    res.json(await chat.inbox(viewerOf(res), parse(schemas.inbox, req.query).page));
  });
  ws.get('/search', async (req, res) => {
    res.json({ results: await chat.search(viewerOf(res), parse(schemas.search, req.query).q) });
  });

  ws.get('/agents', async (_req, res) => {
    const v = viewerOf(res);
    res.json({ ...(await agentsPage.list(v)), mcpUrl: `${settings.publicUrl}/mcp/${v.workspace.slug}` });
  });
  ws.post('/agents', async (req, res) => {
    const v = viewerOf(res);
    const { agent, token } = await agentsPage.create(v, parse(schemas.agent, req.body));
    core.logger.info({ agent: agent.name, workspace: v.workspace.slug }, 'agent created from the web');
    res.status(201).json({ agent, token, config: config(v, agent.name, token) });
  });
  ws.post('/agents/:id/join', async (req, res) => {
    res.json({ agent: await agentsPage.joinHere(viewerOf(res), parse(id, req.params.id)) });
  });
  ws.post('/agents/:id/rotate-token', async (req, res) => {
    const v = viewerOf(res);
    const { agent, token } = await agentsPage.rotate(v, parse(id, req.params.id));
    core.logger.info({ agent: agent.name }, 'agent token rotated from the web');
    res.json({ agent, token, config: config(v, agent.name, token) });
  });

  // Unknown API paths answer in JSON, not with the chat page.
  api.use((req, res) => {
    res.status(404).json({
      error: { code: 'NOT_FOUND', message: `There is no API route ${req.method} ${req.baseUrl}${req.path}.` },
    });
  });
  // A body the parser refused (bad JSON, too large) is the caller's mistake, not ours.
  return api;
}
