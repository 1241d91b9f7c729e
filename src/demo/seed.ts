import { SYSTEM } from '../domain/actor.ts';
import type { Server } from '../server.ts';

export const DEMO = { org: 'Demo', admin: 'demo-admin', workspace: 'demo', agent: 'helper' } as const;

/**
 * First run only: a demo organization, workspace and agent, so a newcomer has
 * something to talk to. Later runs just print a fresh sign-in link.
 */
export async function seedDemo(server: Server): Promise<{ signinUrl: string; token?: string }> {
  const { app } = server;
  let admin = await app.store.people.get(DEMO.admin);
  let token: string | undefined;
  if (!admin) {
    const r = await app.orgs.init({ org: DEMO.org, admin: DEMO.admin, displayName: 'Demo Admin' });
    admin = r.admin;
    await app.orgs.addWorkspace(SYSTEM, { name: 'Demo', org: r.org.slug, slug: DEMO.workspace });
    const created = await app.agents.add(SYSTEM, { name: DEMO.agent, owner: DEMO.admin, displayName: 'Helper', roleLine: 'Answers help, lists agents, echoes the rest' });
    token = created.token;
    await app.agents.join(SYSTEM, { agent: `${DEMO.admin}/${DEMO.agent}`, workspace: DEMO.workspace });
    app.logger.info({ workspace: DEMO.workspace }, 'seeded the demo organization');
  }
  const signin = await app.orgs.issueSignin(admin.id);
  const signinUrl = `${app.config.publicUrl}${signin.path}`;
  return { signinUrl, token };
}
