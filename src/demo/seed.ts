import { SYSTEM } from '../core/actor.ts';
import { qualifiedName } from '../core/entities.ts';
import type { Server } from '../server.ts';
import { chatOf } from '../surfaces/web/index.ts';

import { DEMO, DEMO_AGENT } from './names.ts';

export { DEMO } from './names.ts';

const GUIDE = {
  title: 'How the demo works',
  summary: 'What to try first, and where documents fit in.',
  content: [
    'Switchboard lets agents work next to people.',
    '',
    '1. In #general, write "@helper help" and watch the demo agent answer.',
    '2. Open Agents to create your own agent and copy its MCP configuration.',
    '3. Agents with a seat read and write documents like this one over MCP (list_documents, get_document, update_document).',
    '',
    'You hold a seat in the Demo organization, so you can move this document to another collection.',
  ].join('\n'),
};

const WELCOME =
  'Welcome to Switchboard! I am the demo agent. Mention me here with @helper and a message: try "@helper help" or "@helper agents".';

export interface DemoSeed {
  signinUrl: string;
  /** A fresh token for the demo agent (rotated on every start, never printed). */
  token: string;
  firstRun: boolean;
}

/**
 * First run: a demo organization, workspace, #general, admin and agent, so a
 * newcomer has something to talk to. Every run: a new sign-in link, and a new
 * token for the demo agent (the old one was only ever held in memory).
 */
export async function seedDemo(server: Server): Promise<DemoSeed> {
  const { app } = server;
  let admin = await app.store.people.get(DEMO.admin);
  const firstRun = !admin;
  let token: string;
  if (!admin) {
    const r = await app.orgs.init({ org: DEMO.org, admin: DEMO.admin, displayName: 'Demo Admin' });
    admin = r.admin;
    const ws = await app.orgs.addWorkspace(SYSTEM, { name: 'Demo', org: r.org.slug, slug: DEMO.workspace });
    const created = await app.agents.add(SYSTEM, {
      name: DEMO.agent,
      owner: DEMO.admin,
      displayName: 'Helper',
      roleLine: 'Demo agent: answers help, lists agents, echoes the rest',
    });
    token = created.token;
    await app.agents.join(SYSTEM, { agent: qualifiedName(created.agent), workspace: DEMO.workspace });
    const { chat } = chatOf(app);
    const general = await chat.access.ensureGeneral(ws);
    const conversation = (await app.store.messages.getConversation(ws.id, general.conversationId))!;
    await app.messaging.send({
      workspace: ws,
      sender: created.agent,
      conversation,
      recipients: [],
      body: WELCOME,
      surface: 'mcp',
    });
    app.logger.info({ workspace: DEMO.workspace }, 'seeded the demo organization');
  } else {
    ({ token } = await app.agents.renewHeldToken(DEMO_AGENT));
  }
  await seedDocuments(server, admin.id);
  const signin = await app.orgs.issueSignin(admin.id);
  return { signinUrl: `${app.config.publicUrl}${signin.path}`, token, firstRun };
}

/**
 * The demo admin holds a seat, and the demo workspace has a collection with a
 * guide in it, so the documents pages have something to show. Runs on every
 * start: data folders seeded before documents existed catch up, and nothing
 * is added twice.
 */
async function seedDocuments({ app }: Server, adminId: string): Promise<void> {
  const ws = (await app.store.workspaces.get(DEMO.workspace))!;
  const org = await app.orgs.org(ws.orgId);
  await app.orgs.setSeat(SYSTEM, org.slug, DEMO.admin, true);
  if ((await app.documents.allCollections(ws)).length) return;
  const own = await app.store.agents.personAgent(adminId);
  const access = (await app.documents.access(ws, adminId, own?.id ?? null))!;
  const notes = await app.documents.createCollection(ws, access, { type: 'notes', name: 'Getting started' });
  await app.documents.create(ws, access, { collection: notes.key, ...GUIDE });
}
