// The listening repo forgets the listeners of agents that leave workspaces:
// only the agents and workspaces named, nobody else's rows, and listening anew
// afterwards counts as a start. On every database kind available here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { createStore } from '../../../src/infra/db/store.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { AgentService } from '../../../src/core/agents/agent-service.ts';
import type { ListenPlace } from '../../../src/core/listening/listen-ports.ts';
import { OrgService } from '../../../src/core/organizations/org-service.ts';
import { systemClock, type Store } from '../../../src/core/ports.ts';
import type { Workspace } from '../../../src/core/entities.ts';
import { databases } from '../../support/db.ts';

const CHANNEL: ListenPlace = { surface: 'slack', channelId: 'C0GENERAL' };

describe.each(databases())('listening repo on $kind', (kind) => {
  let database: Database;
  let store: Store;
  let eng: Workspace;
  let ops: Workspace;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    database = await kind.open();
    store = createStore(database.db);
    const orgs = new OrgService(store, systemClock);
    const agents = new AgentService(store, orgs);
    const { org } = await orgs.init({ org: 'Acme', admin: 'alice' });
    // Straight into the store: what the services check on the way is not this file's concern.
    eng = await store.workspaces.create({
      orgId: org.id,
      name: 'Eng',
      slug: 'eng',
      restricted: false,
      kind: 'structured',
    });
    ops = await store.workspaces.create({
      orgId: org.id,
      name: 'Ops',
      slug: 'ops',
      restricted: false,
      kind: 'structured',
    });
    for (const name of ['triage', 'scribe']) {
      ids[name] = (await agents.add(SYSTEM, { name, owner: 'alice' })).agent.id;
      for (const ws of [eng, ops]) {
        await store.agents.putMembership({
          agentId: ids[name],
          workspaceId: ws.id,
          send: true,
          receive: true,
          canMessage: [],
          takesMessagesFrom: [],
          monitor: false,
        });
      }
    }
  }, 120_000);
  afterAll(() => database?.close());

  /** The channel's listeners, as a set (two added within the clock's resolution have no order of their own). */
  const listeners = async (ws: Workspace) => (await store.listening.list(ws.id, CHANNEL)).map((l) => l.agentId).sort();
  const listen = (ws: Workspace, agentId: string) =>
    store.listening.add({ workspaceId: ws.id, ...CHANNEL, agentId, addedBy: null });

  it("removes only the named agents' rows, in the named workspaces or in all of them", async () => {
    for (const ws of [eng, ops]) for (const id of [ids.triage, ids.scribe]) expect(await listen(ws, id)).toBe(true);

    await store.listening.removeAgents([ids.triage], [eng.id]);
    expect(await listeners(eng)).toEqual([ids.scribe]);
    expect(await listeners(ops)).toEqual([ids.triage, ids.scribe].sort());

    await store.listening.removeAgents([ids.scribe], null);
    expect(await listeners(eng)).toEqual([]);
    expect(await listeners(ops)).toEqual([ids.triage]);

    // Nothing named, nothing removed.
    await store.listening.removeAgents([], null);
    await store.listening.removeAgents([ids.triage], []);
    expect(await listeners(ops)).toEqual([ids.triage]);

    // Listening again after leaving is a start, not a row kept.
    expect(await listen(eng, ids.triage)).toBe(true);
  });
});
