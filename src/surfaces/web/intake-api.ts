// The intake page's data: a workspace's intake items the person may see, with
// filters (status, kind, source surface) and counts per source and status; and
// triage from the page (a new status, a note, merging a duplicate) by whoever
// sees the item, with the rules and notices of the agents' update_intake.
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import type { Viewer } from '../../core/channels/access.ts';
import { INTAKE_KINDS, INTAKE_STATUSES } from '../../core/intake/intake-item.ts';
import { parseInput } from '../../http/input.ts';
import type { WebChat } from './context.ts';

const STATUS_RULE = `status must be one of: ${INTAKE_STATUSES.join(', ')}`;
// An empty value (the "any" choice of a filter, the "keep it" choice of the panel) means none.
const any = <T extends z.ZodTypeAny>(t: T) => z.preprocess((x) => (x === '' ? undefined : x), t.optional());
const filter = z.object({
  status: any(z.enum(INTAKE_STATUSES, { message: STATUS_RULE })),
  kind: any(z.enum(INTAKE_KINDS, { message: `kind must be one of: ${INTAKE_KINDS.join(', ')}` })),
  // Any surface's name: the chat apps are the registry's, which the web chat does not import.
  surface: any(
    z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'surface must be a surface name such as web, slack or email'),
  ),
});
const id = z.string().uuid({ message: 'must be the id of an item on the intake page' });
const triage = z
  .object({
    status: any(z.enum(INTAKE_STATUSES, { message: STATUS_RULE })),
    note: z.string().trim().max(4000, 'a note holds at most 4000 characters').optional(),
  })
  .refine((c) => c.status || c.note, { message: 'Choose a new status or write a note, then save.' });
const merge = z.object({ into: id });

const viewerOf = (res: Response) => res.locals.viewer as Viewer;

/**
 * `GET /intake[?status=&kind=&surface=]`, `PATCH /intake/:id` (status, note) and `POST /intake/:id/merge` (into: the
 * item it repeats) inside `/api/chat/w/:workspace`.
 */
export function intakeRoutes({ intakePage }: WebChat): Router {
  const r = express.Router({ mergeParams: true });
  r.get('/intake', async (req, res) => {
    res.json(await intakePage.list(viewerOf(res), parseInput(filter, req.query)));
  });
  r.patch('/intake/:id', async (req, res) => {
    res.json(await intakePage.triage(viewerOf(res), parseInput(id, req.params.id), parseInput(triage, req.body)));
  });
  r.post('/intake/:id/merge', async (req, res) => {
    const { into } = parseInput(merge, req.body);
    res.json(await intakePage.merge(viewerOf(res), parseInput(id, req.params.id), into));
  });
  return r;
}
