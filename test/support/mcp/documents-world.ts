import { SYSTEM } from '../../../src/core/actor.ts';
import type { App } from '../../../src/app.ts';
import type { Agent, Workspace, WorkspaceKind } from '../../../src/core/entities.ts';
import { connectInProcess } from '../world.ts';

let n = 0;

export interface DocsWorld {
  ws: Workspace;
  org: string;
  /** Handles by role: `owner` is the org admin (owner of every workspace). */
  people: { owner: string; viewer: string; editor: string; writer: string };
  /** One agent per person; `writer` is an editor with a seat, `editor` one without. */
  agents: { owner: Agent; viewer: Agent; editor: Agent; writer: Agent };
  connect(who: keyof DocsWorld['agents']): ReturnType<typeof connectInProcess>;
}

/**
 * A fresh organization and workspace of the given kind with four people and
 * one agent each: the admin (owner, with a seat unless `ownerSeat` is false),
 * a viewer, an editor without a seat, and an editor with a seat.
 */
export async function docsWorld(app: App, kind: WorkspaceKind, opts: { ownerSeat?: boolean } = {}): Promise<DocsWorld> {
  const s = `${process.pid.toString(36)}d${(n++).toString(36)}`;
  const people = { owner: `own-${s}`, viewer: `view-${s}`, editor: `edit-${s}`, writer: `write-${s}` };
  const { org } = await app.orgs.init({ org: `Docs ${s}`, admin: people.owner });
  for (const h of [people.viewer, people.editor, people.writer])
    await app.orgs.addPerson(SYSTEM, { handle: h, org: org.slug });
  const ws = await app.orgs.addWorkspace(SYSTEM, {
    name: `Knowledge ${s}`,
    org: org.slug,
    simplified: kind === 'simplified',
  });
  await app.orgs.addWorkspaceMember(SYSTEM, ws.slug, people.editor, 'editor');
  await app.orgs.addWorkspaceMember(SYSTEM, ws.slug, people.writer, 'editor');
  await app.orgs.setSeat(SYSTEM, org.slug, people.writer, true);
  if (opts.ownerSeat !== false) await app.orgs.setSeat(SYSTEM, org.slug, people.owner, true);
  const agents = {} as DocsWorld['agents'];
  for (const role of ['owner', 'viewer', 'editor', 'writer'] as const) {
    const { agent } = await app.agents.add(SYSTEM, { name: `${role}-bot`, owner: people[role] });
    await app.agents.join(SYSTEM, { agent: `${people[role]}/${role}-bot`, workspace: ws.slug });
    agents[role] = agent;
  }
  return { ws, org: org.slug, people, agents, connect: (who) => connectInProcess(app, agents[who], ws.slug) };
}
