import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM } from '../../src/core/actor.ts';
import type { Workspace } from '../../src/core/entities.ts';
import { mountDocuments } from '../../src/http/documents/index.ts';
import { HttpBrowser } from '../support/web/browser.ts';
import { seedOrg, startTestServer, type TestServer } from '../support/web/server.ts';

let server: TestServer;
let ws: Workspace;
let admin: HttpBrowser;
let member: HttpBrowser;
const ids: Record<string, string> = {};

const json = (b: HttpBrowser, method: string, path: string, body?: unknown, opts: { csrf?: boolean } = {}) =>
  b.request(method, `/api/docs${path}`, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(opts.csrf === false ? {} : { 'x-csrf-token': b.csrf }) },
  });

beforeAll(async () => {
  server = await startTestServer({ mounts: [mountDocuments] });
  const { app } = server;
  const seeded = await seedOrg(server, { org: 'Docs Co', workspace: 'handbook', admin: 'ada', member: 'max' });
  ws = seeded.ws;
  await app.orgs.setSeat(SYSTEM, seeded.org.slug, 'ada', true);
  const access = (await app.documents.access(ws, seeded.admin.id, null))!;
  await app.documents.createCollection(ws, access, { type: 'specs' });
  await app.documents.createCollection(ws, access, { type: 'notes' });
  await app.documents.createCollection(ws, access, { type: 'decisions' });
  ids.spec = (
    await app.documents.create(ws, access, {
      collection: 'specs',
      title: 'Search v2',
      summary: 'Faster search',
      content: 'Body <b>bold</b>',
      status: 'approved',
    })
  ).identifier;
  ids.note = (await app.documents.create(ws, access, { collection: 'notes', title: 'Retro', summary: '' })).identifier;
  admin = new HttpBrowser(server.url);
  member = new HttpBrowser(server.url);
  await admin.signIn('ada', seeded.password);
  await member.signIn('max', seeded.password);
});
afterAll(async () => {
  await server.close();
});

describe('documents in the web app', () => {
  it('lets any role browse and read, and says what the person may do', async () => {
    const overview = (await json(member, 'GET', '/w/handbook')).json();
    expect(overview.you).toEqual({ handle: 'max', role: 'viewer', hasSeat: false, orgAdmin: false });
    // Listed oldest first, ties (created in the same millisecond) by key: compared here by key, for the counts.
    const counts = overview.collections.map((c: { key: string; documents: number }) => [c.key, c.documents]);
    expect(counts.sort()).toEqual([
      ['decisions', 0],
      ['notes', 1],
      ['specs', 1],
    ]);
    expect(overview.people).toBeUndefined();
    const list = (await json(member, 'GET', '/w/handbook/documents?collection=specs')).json();
    expect(list.documents.map((d: { identifier: string }) => d.identifier)).toEqual([ids.spec]);
    expect(list.documents[0].content).toBeUndefined();
    const doc = (await json(member, 'GET', `/w/handbook/documents/${ids.spec}`)).json();
    expect(doc.document).toMatchObject({ title: 'Search v2', content: 'Body <b>bold</b>' });
    const search = (await json(member, 'GET', '/w/handbook/documents?q=faster')).json();
    expect(search.documents.map((d: { identifier: string }) => d.identifier)).toEqual([ids.spec]);
  });

  it('renders the pages without scripts and escapes what documents contain', async () => {
    const page = await member.get('/docs/handbook?collection=specs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Search v2');
    expect(page.text).not.toContain('<script');
    const doc = await member.get(`/docs/handbook/d/${ids.spec}`);
    expect(doc.text).toContain('Body &lt;b&gt;bold&lt;/b&gt;');
    expect(doc.text).not.toContain('Move to another collection');
    expect((await new HttpBrowser(server.url).get('/docs/handbook')).status).toBe(303);
  });

  it("refuses a viewer's move and collection changes, and anything without a session or CSRF token", async () => {
    const move = await json(member, 'POST', `/w/handbook/documents/${ids.note}/move`, { collection: 'decisions' });
    expect(move.status).toBe(403);
    expect(move.json().error.message).toContain('is a viewer');
    expect((await json(member, 'PATCH', '/w/handbook/collections/notes', { name: 'Mine' })).status).toBe(403);
    expect((await json(member, 'DELETE', '/w/handbook/collections/decisions')).status).toBe(403);
    expect((await json(admin, 'PATCH', '/w/handbook/collections/notes', { name: 'X' }, { csrf: false })).status).toBe(
      403,
    );
    expect((await json(new HttpBrowser(server.url), 'GET', '/w/handbook')).status).toBe(401);
  });

  it('lets an organization admin assign a seat, after which an editor can move a document', async () => {
    await server.app.orgs.addWorkspaceMember(SYSTEM, 'handbook', 'max', 'editor');
    const refused = await json(member, 'POST', `/w/handbook/documents/${ids.note}/move`, { collection: 'decisions' });
    expect(refused.status).toBe(403);
    expect(refused.json().error).toMatchObject({ code: 'NEEDS_SEAT' });

    expect((await json(member, 'PUT', '/w/handbook/seats/max', { has_seat: true })).status).toBe(403);
    const people = (await json(admin, 'GET', '/w/handbook')).json().people;
    expect(people.find((p: { handle: string }) => p.handle === 'max')).toMatchObject({
      role: 'editor',
      hasSeat: false,
    });
    const granted = await json(admin, 'PUT', '/w/handbook/seats/max', { has_seat: true });
    expect(granted.json()).toEqual({ handle: 'max', hasSeat: true, org: 'docs-co' });

    const moved = await json(member, 'POST', `/w/handbook/documents/${ids.note}/move`, { collection: 'decisions' });
    expect(moved.status).toBe(200);
    // The identifier stays; "draft" is not a decisions status, so the first one is used.
    expect(moved.json().document).toMatchObject({ identifier: ids.note, status: 'proposed' });
    const doc = await server.app.documents.get(ws, ids.note);
    const decisions = await server.app.store.documents.getCollection(ws.id, 'decisions');
    expect(doc.collectionId).toBe(decisions!.id);
  });

  it('lets owners rename, deactivate and delete collections; deleting one that holds documents is refused', async () => {
    const renamed = (await json(admin, 'PATCH', '/w/handbook/collections/specs', { name: 'Product specs' })).json();
    expect(renamed.collection).toMatchObject({ key: 'specs', name: 'Product specs' });

    expect(
      (await json(admin, 'PATCH', '/w/handbook/collections/specs', { active: false })).json().collection.active,
    ).toBe(false);
    const agentView = await server.app.documents.visibleCollections(ws);
    expect(agentView.map((c) => c.key)).not.toContain('specs');
    await expect(server.app.documents.list(ws, { collection: 'specs' })).rejects.toThrow('deactivated');
    expect((await json(admin, 'GET', '/w/handbook/documents?collection=specs')).json().documents).toHaveLength(1);
    // The web app still finds its documents (agents do not: deactivating hides a collection from them only).
    expect(
      (await json(admin, 'GET', `/w/handbook/documents?q=${ids.spec}&collection=specs`))
        .json()
        .documents.map((d: { identifier: string }) => d.identifier),
    ).toEqual([ids.spec]);
    expect(
      (await json(admin, 'GET', `/w/handbook/documents?q=${ids.spec}`))
        .json()
        .documents.map((d: { identifier: string }) => d.identifier),
    ).toEqual([ids.spec]);
    expect(await server.app.documents.search(ws, { text: ids.spec })).toEqual([]);
    await json(admin, 'PATCH', '/w/handbook/collections/specs', { active: true });

    const full = await json(admin, 'DELETE', '/w/handbook/collections/decisions');
    expect(full.status).toBe(409);
    expect(full.json().error.message).toContain('still holds 1 document');
    expect((await json(admin, 'DELETE', '/w/handbook/collections/notes')).status).toBe(204);
    expect((await json(admin, 'GET', '/w/handbook')).json().collections.map((c: { key: string }) => c.key)).toEqual([
      'specs',
      'decisions',
    ]);
  });

  it('posts the page forms and comes back with a notice or the refusal', async () => {
    await admin.get('/docs/handbook?collection=decisions');
    const ok = await admin.form('/docs/handbook/c/decisions', { name: 'ADRs' });
    expect(ok.status).toBe(303);
    expect(decodeURIComponent(ok.location!)).toContain('Saved "ADRs"');
    const refused = await admin.form('/docs/handbook/c/decisions/delete', {});
    expect(decodeURIComponent(refused.location!)).toContain('error=');
    const page = await admin.get(refused.location!);
    expect(page.text).toContain('role="alert"');
  });

  it('does not show a restricted workspace to someone who cannot reach it', async () => {
    await server.app.orgs.setPlan(SYSTEM, 'docs-co', 'team', 10_000);
    await server.app.orgs.addWorkspace(SYSTEM, { name: 'Secret', org: 'docs-co', restricted: true });
    expect((await json(admin, 'GET', '/w/secret')).status).toBe(200);
    const r = await json(member, 'GET', '/w/secret');
    expect(r.status).toBe(404);
    expect(r.json().error.message).toContain('was not found');
    expect((await json(member, 'GET', '/w/nope')).status).toBe(404);
  });
});
