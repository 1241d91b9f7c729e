import { z } from 'zod';
import type { App } from '../../app.ts';
import type { DocumentAccess } from '../../core/documents/document.ts';
import { invalidInput, notFound } from '../../core/errors.ts';
import type { Person, Workspace, WorkspaceRole } from '../../core/entities.ts';

/** A signed-in person looking at one workspace's documents, with what they may do there (resolved per request). */
export interface DocsViewer {
  person: Person;
  ws: Workspace;
  role: WorkspaceRole;
  access: DocumentAccess;
  isOrgAdmin: boolean;
}

/** Parses a request part with zod; problems become one INVALID_INPUT sentence. */
export function parse<S extends z.ZodType>(schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw ?? {});
  if (!r.success)
    throw invalidInput(
      r.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; '),
    );
  return r.data;
}

const flag = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'on'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'on');

export const schemas = {
  list: z.object({
    collection: z.string().max(100).optional(),
    status: z
      .string()
      .max(40)
      .optional()
      .transform((s) => s || undefined),
    archived: flag.optional(),
    q: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((s) => s || undefined),
    offset: z.coerce.number().int().min(0).default(0),
  }),
  move: z.object({
    collection: z.string().min(1, 'choose the collection to move it to').max(100),
    status: z
      .string()
      .max(40)
      .optional()
      .transform((s) => s || undefined),
  }),
  collection: z
    .object({ name: z.string().trim().min(1).max(80).optional(), active: flag.optional() })
    .refine((v) => v.name !== undefined || v.active !== undefined, 'give a new name or active: true/false'),
  seat: z.object({ has_seat: flag }),
};

/**
 * Who is asking, in which workspace. Someone who cannot reach the workspace
 * is told it was not found, so its existence does not leak.
 */
export async function docsViewer(app: App, person: Person, workspace: string): Promise<DocsViewer> {
  const ws = await app.store.workspaces.get(workspace);
  const role = ws ? await app.orgs.roleIn(person.id, ws) : null;
  if (!ws || !role) throw notFound(`The workspace "${workspace}"`, 'Pick one from the list of your workspaces.');
  const [own, member] = await Promise.all([
    app.store.agents.personAgent(person.id),
    app.store.orgs.member(ws.orgId, person.id),
  ]);
  const access = (await app.documents.access(ws, person.id, own?.id ?? null, {
    role,
    hasSeat: Boolean(member?.hasSeat),
  }))!;
  return { person, ws, role, access, isOrgAdmin: member?.role === 'admin' };
}

const adminOf = (app: App) => app.documentAdmin;

/** The people of a workspace with their role and seat (for organization admins assigning seats). */
export async function seatsOf(app: App, ws: Workspace) {
  const people = await app.store.workspaces.reachablePeople(ws);
  const members = await Promise.all(people.map((p) => app.store.orgs.member(ws.orgId, p.person.id)));
  return people.map((p, i) => ({
    handle: p.person.handle,
    displayName: p.person.displayName,
    role: p.role,
    inOrg: Boolean(members[i]),
    hasSeat: Boolean(members[i]?.hasSeat),
  }));
}

/** Records a change made in the web app in the workspace's audit trail. */
const audit = (app: App, v: DocsViewer, action: string, target: string, details?: Record<string, unknown>) =>
  app.store.audit.record({
    workspaceId: v.ws.id,
    agentId: v.access.agentId,
    onBehalfOf: v.person.id,
    action,
    target,
    result: 'ok',
    details,
  });

/** The changes the web app makes; each checks who may make it, then is audited. */
export const actions = {
  move: async (app: App, v: DocsViewer, document: string, raw: unknown) => {
    const a = parse(schemas.move, raw);
    const moved = await adminOf(app).move(v.ws, v.access, document, a.collection, a.status);
    await audit(app, v, 'web.move_document', moved.identifier, { to: a.collection });
    return moved;
  },
  updateCollection: async (app: App, v: DocsViewer, collection: string, raw: unknown) => {
    const a = parse(schemas.collection, raw);
    let c = a.name !== undefined ? await adminOf(app).renameCollection(v.ws, v.role, collection, a.name) : null;
    if (a.active !== undefined) c = await adminOf(app).setCollectionActive(v.ws, v.role, collection, a.active);
    await audit(app, v, 'web.update_collection', c!.key, a);
    return c!;
  },
  deleteCollection: async (app: App, v: DocsViewer, collection: string) => {
    await adminOf(app).deleteCollection(v.ws, v.role, collection);
    await audit(app, v, 'web.delete_collection', collection);
  },
  setSeat: async (app: App, v: DocsViewer, handle: string, raw: unknown) => {
    const a = parse(schemas.seat, raw);
    const org = await app.orgs.org(v.ws.orgId);
    const r = await app.orgs.setSeat({ kind: 'person', personId: v.person.id }, org.slug, handle, a.has_seat);
    await audit(app, v, a.has_seat ? 'web.grant_seat' : 'web.revoke_seat', handle);
    return r;
  },
};
