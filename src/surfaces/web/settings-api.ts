// A channel's settings in the web chat: which agents listen to it and which
// Slack or Teams channels it is bridged with. Owners change both through the
// same domain services as the CLI, so the same rules and sentences apply; and
// a person's own choice of being told when what they asked for is done.
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import type { Actor } from '../../core/actor.ts';
import type { Viewer } from '../../core/channels/access.ts';
import { invalidInput, notFound } from '../../core/errors.ts';
import { qualifiedName } from '../../core/entities.ts';
import { parseInput, safeText } from '../../http/input.ts';
import type { WebChat } from './context.ts';
import type { ChannelSettings } from './pages/views.ts';

const uuid = z.string().uuid({ message: 'must be an id taken from the chat' });
const schemas = {
  listen: z.object({ agent: safeText().trim().min(1, 'name the agent that should listen, as OWNER/NAME').max(80) }),
  bridge: z.object({
    surface: safeText().trim().min(1, 'say which chat app to bridge with (surface)').max(40),
    channel: safeText().trim().min(1, "give the outside channel's id, as the chat app shows it").max(200),
    allowPrivate: z.boolean().optional(),
  }),
  notices: z.object({ on: z.boolean({ message: 'on must be true or false' }) }),
};

const viewerOf = (res: Response) => res.locals.viewer as Viewer;
const actorOf = (v: Viewer): Actor => ({ kind: 'person', personId: v.person.id });

/** The settings of one channel as this viewer may see them. */
async function channelSettings({ core, chat }: WebChat, v: Viewer, channelId: string): Promise<ChannelSettings> {
  const ch = await chat.access.channel(v, channelId);
  const canManage = v.role === 'owner';
  const listeners = (await core.listening.ofWebChannel(v.workspace, ch.conversationId)).map((l) => ({
    agentId: l.agentId,
    agent: l.agent,
    displayName: l.displayName,
    since: l.since,
  }));
  const bridges = canManage
    ? (await core.bridges.list(actorOf(v), v.workspace.id, ch.conversationId)).map((b) => ({
        id: b.id,
        surface: b.surface,
        label: b.label,
        title: b.title,
        externalChannelId: b.externalChannelId,
        allowPrivate: b.allowPrivate,
      }))
    : (await core.bridges.ofChannel(v.workspace.id, ch.conversationId)).map((b) => ({
        id: null,
        surface: b.surface,
        label: chat.via(b.surface) ?? b.surface,
        title: b.title || 'a channel',
        externalChannelId: null,
        allowPrivate: b.allowPrivate,
      }));
  const listening = new Set(listeners.map((l) => l.agentId));
  const candidates = canManage
    ? (await core.agents.directory(v.workspace))
        .filter((d) => d.agent.kind === 'agent' && d.permissions.receive && !listening.has(d.agent.id))
        .map((d) => ({ id: d.agent.id, name: qualifiedName(d.agent), displayName: d.agent.displayName }))
    : [];
  const bridgeTo = canManage ? core.bridges.surfaces() : [];
  return {
    channel: { id: ch.conversationId, name: ch.name, restricted: ch.restricted },
    canManage,
    listeners,
    bridges,
    bridgeTo,
    candidates,
  };
}

/** `GET /channels/:id/settings`, `POST /channels/:id/listeners`, `DELETE /channels/:id/listeners/:agentId`, `POST /channels/:id/bridges`, `DELETE /channels/:id/bridges/:bridgeId` inside `/api/chat/w/:workspace`. */
export function channelSettingsRoutes(w: WebChat): Router {
  const { core, chat } = w;
  const r = express.Router({ mergeParams: true });
  const settings = (res: Response, id: string) => channelSettings(w, viewerOf(res), id);

  r.get('/channels/:id/settings', async (req, res) => {
    res.json(await settings(res, parseInput(uuid, req.params.id)));
  });

  r.post('/channels/:id/listeners', async (req, res) => {
    const v = viewerOf(res);
    const ch = await chat.access.channel(v, parseInput(uuid, req.params.id));
    const { agent } = parseInput(schemas.listen, req.body);
    const { added } = await core.listening.listen(actorOf(v), v.workspace.id, ch.name, agent);
    res.status(added ? 201 : 200).json({ added, settings: await settings(res, ch.conversationId) });
  });

  r.delete('/channels/:id/listeners/:agentId', async (req, res) => {
    const v = viewerOf(res);
    const ch = await chat.access.channel(v, parseInput(uuid, req.params.id));
    const agent = await core.agents.get(parseInput(uuid, req.params.agentId));
    const name = agent ? qualifiedName(agent) : String(req.params.agentId);
    const { removed } = await core.listening.unlisten(actorOf(v), v.workspace.id, ch.name, name);
    res.json({ removed, settings: await settings(res, ch.conversationId) });
  });

  r.post('/channels/:id/bridges', async (req, res) => {
    const v = viewerOf(res);
    const ch = await chat.access.channel(v, parseInput(uuid, req.params.id));
    const body = parseInput(schemas.bridge, req.body);
    const offered = core.bridges.surfaces();
    if (!offered.some((s) => s.surface === body.surface)) {
      throw invalidInput(
        offered.length
          ? `surface must be one of the chat apps configured here: ${offered.map((s) => `"${s.surface}" (${s.label})`).join(', ')}.`
          : 'No chat app is configured here to bridge with; configure one first.',
      );
    }
    await core.bridges.add(actorOf(v), {
      workspace: v.workspace.id,
      channel: ch.name,
      to: [{ surface: body.surface, channel: body.channel }],
      allowPrivate: body.allowPrivate,
      // The box of the bridge form (client/settings.ts).
      howToAllow: `tick "Allow this restricted channel's messages into the outside channel" below the bridge form, and bridge it again`,
    });
    res.status(201).json({ settings: await settings(res, ch.conversationId) });
  });

  r.delete('/channels/:id/bridges/:bridgeId', async (req, res) => {
    const v = viewerOf(res);
    const ch = await chat.access.channel(v, parseInput(uuid, req.params.id));
    const bridgeId = parseInput(uuid, req.params.bridgeId);
    // Only a bridge of this channel; the service then says whether this person may remove it.
    if ((await core.bridges.find(v.workspace.id, bridgeId))?.channelId !== ch.conversationId) {
      throw notFound(`A bridge ${bridgeId} of #${ch.name}`, "Reload the channel's settings to see its bridges.");
    }
    await core.bridges.remove(actorOf(v), v.workspace.id, bridgeId);
    res.json({ settings: await settings(res, ch.conversationId) });
  });

  return r;
}

/** `GET /me/notices` and `POST /me/notices` under `/api/chat`: the same stored choice as the chat apps' `notices off|on` command. */
export function noticeRoutes({ core, http }: WebChat): Router {
  const r = express.Router();
  const subject = (res: Response) => ({ personId: http.authOf(res)!.person.id });
  r.get('/me/notices', async (_req, res) => {
    res.json({ on: await core.intake.noticesOn(subject(res)) });
  });
  r.post('/me/notices', async (req, res) => {
    const { on } = parseInput(schemas.notices, req.body);
    await core.intake.setNotices(subject(res), on);
    res.json({ on: await core.intake.noticesOn(subject(res)) });
  });
  return r;
}
