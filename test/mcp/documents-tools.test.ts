import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { SYSTEM } from '../../src/core/actor.ts';
import { ERROR_META_KEY } from '../../src/mcp/errors.ts';
import { docsWorld } from '../support/mcp/documents-world.ts';
import { appPerFile, textOf } from '../support/world.ts';

const READ = ['get_document', 'get_workspace_information', 'list_documents', 'search_documents'];
const WRITE = ['create_document', 'update_document'];
const STRUCTURE = ['create_collection', 'get_available_collection_types', 'update_collection_instructions'];
const SIMPLIFIED_OWNER = ['update_workspace_instructions'];
const ALL = [...READ, ...WRITE, ...STRUCTURE, ...SIMPLIFIED_OWNER];

let app: App;
appPerFile((a) => {
  app = a;
});

async function toolNames(c: Awaited<ReturnType<Awaited<ReturnType<typeof docsWorld>>['connect']>>) {
  const names = (await c.client.listTools()).tools.map((t) => t.name);
  return { docs: names.filter((n) => ALL.includes(n)).sort(), others: names.filter((n) => !ALL.includes(n)).sort() };
}

describe.each(['structured', 'simplified'] as const)('document tools by role in a %s workspace', (kind) => {
  /** The collection argument documents take: in a structured workspace the owner opens one of `type` first. */
  async function openCollection(
    w: Awaited<ReturnType<typeof docsWorld>>,
    type: string,
  ): Promise<{ collection?: string }> {
    if (kind !== 'structured') return {};
    const owner = await w.connect('owner');
    expect((await owner.call('create_collection', { type })).isError).toBeFalsy();
    await owner.close();
    return { collection: type };
  }

  const ownerTools = kind === 'structured' ? STRUCTURE : SIMPLIFIED_OWNER;
  const expected = {
    viewer: READ,
    editor: READ, // an editor without a seat keeps the reading tools only
    writer: [...READ, ...WRITE].sort(),
    owner: [...READ, ...WRITE, ...ownerTools].sort(),
  };

  it('gives each role exactly the tools it allows (Viewer 4, Editor with a seat 6, Owner 9 or 7)', async () => {
    const w = await docsWorld(app, kind);
    const seen: Record<string, string[]> = {};
    let messaging: string[] | null = null;
    for (const who of ['viewer', 'editor', 'writer', 'owner'] as const) {
      const c = await w.connect(who);
      const { docs, others } = await toolNames(c);
      seen[who] = docs;
      messaging ??= others;
      expect(others, 'the role changes only the document tools').toEqual(messaging);
      await c.close();
    }
    expect(seen).toEqual(expected);
    expect(seen.owner).toHaveLength(kind === 'structured' ? 9 : 7);
  });

  it("refuses a seatless editor's writing call with a sentence about the seat and who assigns it", async () => {
    const w = await docsWorld(app, kind);
    const c = await w.connect('editor');
    const r = await c.call('create_document', { collection: 'specs', title: 'Plan', summary: 'x' });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toContain('needs a seat');
    expect(text).toContain(`@${w.people.editor} holds none`);
    expect(text).toContain(`switchboard seat grant ${w.people.editor} --org ${w.org}`);
    expect(text).toMatch(/An admin of .+ can assign one/);
    expect(text).not.toMatch(/\b(editor|viewer|owner|role)\b/i);
    expect((r._meta?.[ERROR_META_KEY] as { code: string }).code).toBe('NEEDS_SEAT');
    // Reading still works, and the instructions say the same thing up front.
    expect((await c.call('get_workspace_information')).isError).toBeFalsy();
    expect(c.client.getInstructions()).toContain('needs a seat');
    await c.close();
  });

  it('checks standing on every call of an open session: a seat taken away refuses the next write, a person removed the next read', async () => {
    const w = await docsWorld(app, kind);
    const collection = await openCollection(w, 'runbooks');
    const writer = await w.connect('writer');
    const viewer = await w.connect('viewer');
    const created = await writer.call('create_document', { ...collection, title: 'Before', summary: 'x' });
    expect(created.isError).toBeFalsy();
    expect((await viewer.call('list_documents', collection)).isError).toBeFalsy();

    await app.orgs.setSeat(SYSTEM, w.org, w.people.writer, false);
    const write = await writer.call('create_document', { ...collection, title: 'After', summary: 'x' });
    expect(write.isError).toBe(true);
    expect((write._meta?.[ERROR_META_KEY] as { code: string }).code).toBe('NEEDS_SEAT');
    expect((await writer.call('get_workspace_information')).structuredContent).toMatchObject({
      access: { has_seat: false },
    });

    await app.orgs.removePerson(SYSTEM, w.org, w.people.viewer);
    for (const [tool, args] of [
      ['list_documents', collection],
      ['search_documents', { query: 'Before' }],
      ['get_workspace_information', {}],
    ] as const) {
      const r = await viewer.call(tool, args);
      expect(r.isError, tool).toBe(true);
      expect((r._meta?.[ERROR_META_KEY] as { code: string }).code, tool).toBe('NOT_PERMITTED');
    }
    await writer.close();
    await viewer.close();
  });

  it('keeps an owner without a seat to the reading tools, refusing the owner tools about the seat too', async () => {
    const w = await docsWorld(app, kind, { ownerSeat: false });
    const c = await w.connect('owner');
    expect((await toolNames(c)).docs).toEqual(READ);
    const r = await c.call(ownerTools[ownerTools.length - 1], { collection: 'x', instructions: 'y' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('needs a seat');
    await c.close();
  });

  it('refuses a writing call the role does not give with the role it needs and the command that gives it; given mid-session, it works', async () => {
    const w = await docsWorld(app, kind);
    const collection = await openCollection(w, 'specs');
    const viewer = await w.connect('viewer');
    const r = await viewer.call('create_document', { ...collection, title: 'x', summary: '' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(
      `@${w.people.viewer} is a viewer of the workspace ${w.ws.slug}, and create_document needs an editor. ` +
        `A workspace owner or an admin of ${(await app.orgs.org(w.ws.orgId)).name} can make @${w.people.viewer} an editor with \`switchboard member add ${w.ws.slug} ${w.people.viewer} --role editor\`, ` +
        `and an admin can assign the seat writing also needs with \`switchboard seat grant ${w.people.viewer} --org ${w.org}\`; the tool then works in this session, and the reading tools work meanwhile.`,
    );
    expect((r._meta?.[ERROR_META_KEY] as { code: string }).code).toBe('NOT_PERMITTED');
    const [audited] = (await app.store.audit.list(w.ws.id, 5)).filter((e) => e.action === 'create_document');
    expect(audited).toMatchObject({ agentId: w.agents.viewer.id, result: 'refused: NOT_PERMITTED' });
    // An editor with a seat asking for an owner's tool is told it needs an owner (and no seat is mentioned).
    const writer = await w.connect('writer');
    const shape = await writer.call(ownerTools[ownerTools.length - 1], { collection: 'specs', instructions: 'y' });
    expect(textOf(shape)).toMatch(
      new RegExp(
        `^@${w.people.writer} is an editor of the workspace ${w.ws.slug}, and ${ownerTools[ownerTools.length - 1]} needs an owner\\. .*--role owner\`; the tool`,
      ),
    );
    expect(textOf(shape)).not.toContain('seat');

    await app.orgs.addWorkspaceMember(SYSTEM, w.ws.slug, w.people.viewer, 'editor');
    await app.orgs.setSeat(SYSTEM, w.org, w.people.viewer, true);
    const now = await viewer.call('create_document', { ...collection, title: 'Now an editor', summary: '' });
    expect(now.isError, textOf(now)).toBeFalsy();
    expect((await toolNames(viewer)).docs).toEqual([...READ, ...WRITE].sort());
    await viewer.close();
    await writer.close();
  });

  it('lists the writing tools in the open session once a seat arrives, tells the client its list changed, and says the same in get_workspace_information', async () => {
    const w = await docsWorld(app, kind, { ownerSeat: false });
    const c = await w.connect('owner');
    let changed = 0;
    c.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    expect((await toolNames(c)).docs).toEqual(READ);
    await app.orgs.setSeat(SYSTEM, w.org, w.people.owner, true);
    const info = await c.call('get_workspace_information');
    expect(info.structuredContent).toMatchObject({
      access: {
        role: 'owner',
        has_seat: true,
        tools: expect.arrayContaining([...WRITE, ...ownerTools]),
        withheld_for_seat: [],
        note: null,
      },
    });
    expect(textOf(info)).not.toContain('holds none');
    await vi.waitFor(() => expect(changed).toBeGreaterThan(0), { timeout: 10_000 });
    expect((await toolNames(c)).docs).toEqual([...READ, ...WRITE, ...ownerTools].sort());
    const write =
      kind === 'structured'
        ? await c.call('create_collection', { type: 'runbooks' })
        : await c.call('update_workspace_instructions', { instructions: 'Short.' });
    expect(write.isError, textOf(write)).toBeFalsy();
    await c.close();
  });

  it('runs a writing call made before the session looked again: the seat counts, not the list the session opened with', async () => {
    const w = await docsWorld(app, kind, { ownerSeat: false });
    const c = await w.connect('owner');
    await app.orgs.setSeat(SYSTEM, w.org, w.people.owner, true);
    const write =
      kind === 'structured'
        ? await c.call('create_collection', { type: 'runbooks' })
        : await c.call('update_workspace_instructions', { instructions: 'Short.' });
    expect(write.isError, textOf(write)).toBeFalsy();
    await c.close();
  });
});

describe('collections and instructions reach agents', () => {
  it('lets an owner open a collection and write its instructions; the next session receives them', async () => {
    const w = await docsWorld(app, 'structured');
    const owner = await w.connect('owner');
    const types = await owner.call('get_available_collection_types');
    expect(
      (types.structuredContent as { types: Array<{ type: string; existing: string[] }> }).types.map((t) => t.type),
    ).toEqual(['specs', 'runbooks', 'decisions', 'notes']);

    const created = await owner.call('create_collection', {
      type: 'runbooks',
      name: 'Ops Runbooks',
      statuses: ['Draft', 'Verified'],
    });
    expect(created.structuredContent).toMatchObject({ identifier: 'ops-runbooks', statuses: ['draft', 'verified'] });
    const dup = await owner.call('create_collection', { type: 'runbooks', name: 'Ops runbooks' });
    expect(dup.isError).toBe(true);
    expect(textOf(dup)).toContain('already has a collection');

    await owner.call('update_collection_instructions', {
      collection: 'ops-runbooks',
      instructions: 'Number every step.',
    });
    const again = await owner.call('get_available_collection_types');
    expect(
      (again.structuredContent as { types: Array<{ type: string; existing: string[] }> }).types.find(
        (t) => t.type === 'runbooks',
      )!.existing,
    ).toEqual(['ops-runbooks']);

    const viewer = await w.connect('viewer');
    expect(viewer.client.getInstructions()).toContain('Number every step.');
    const info = await viewer.call('get_workspace_information');
    expect(info.structuredContent).toMatchObject({
      kind: 'structured',
      statuses: null,
      collections: [
        {
          identifier: 'ops-runbooks',
          name: 'Ops Runbooks',
          type: 'runbooks',
          statuses: ['draft', 'verified'],
          instructions: 'Number every step.',
        },
      ],
      access: {
        role: 'viewer',
        has_seat: false,
        tools: ['get_workspace_information', 'list_documents', 'search_documents', 'get_document'],
        withheld_for_seat: [],
      },
    });
    await owner.close();
    await viewer.close();
  });

  it('writes the workspace instructions of a Simplified workspace, with no collection in sight', async () => {
    const w = await docsWorld(app, 'simplified');
    const owner = await w.connect('owner');
    const r = await owner.call('update_workspace_instructions', { instructions: 'Keep documents short.' });
    expect(r.isError).toBeFalsy();
    const writer = await w.connect('writer');
    expect(writer.client.getInstructions()).toContain('Keep documents short.');
    const info = (await writer.call('get_workspace_information')).structuredContent as Record<string, unknown>;
    expect(info).toMatchObject({
      kind: 'simplified',
      collections: [],
      statuses: ['draft', 'published'],
      instructions: 'Keep documents short.',
    });
    const { tools } = await writer.client.listTools();
    const create = tools.find((t) => t.name === 'create_document')!;
    expect(Object.keys(create.inputSchema.properties ?? {})).not.toContain('collection');
    await owner.close();
    await writer.close();
  });
});
