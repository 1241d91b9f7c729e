// The intake page's data: a workspace's intake items the person may see, with
// filters (status, kind, source surface) and counts per source and status.
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import type { Viewer } from '../../core/channels/access.ts';
import { INTAKE_KINDS, INTAKE_STATUSES } from '../../core/intake/intake-item.ts';
import { parseInput } from '../../http/input.ts';
import type { WebChat } from './context.ts';

// An empty value (the "any" choice of a filter) means no filter.
const any = <T extends z.ZodTypeAny>(t: T) => z.preprocess((x) => (x === '' ? undefined : x), t.optional());
const filter = z.object({
  status: any(z.enum(INTAKE_STATUSES, { message: `status must be one of: ${INTAKE_STATUSES.join(', ')}` })),
  kind: any(z.enum(INTAKE_KINDS, { message: `kind must be one of: ${INTAKE_KINDS.join(', ')}` })),
  // Any surface's name: the chat apps are the registry's, which the web chat does not import.
  surface: any(
    z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'surface must be a surface name such as web, slack or email'),
  ),
});

/** `GET /intake[?status=&kind=&surface=]` inside `/api/chat/w/:workspace`. */
export function intakeRoutes({ intakePage }: WebChat): Router {
  const r = express.Router({ mergeParams: true });
  r.get('/intake', async (req, res: Response) => {
    res.json(await intakePage.list(res.locals.viewer as Viewer, parseInput(filter, req.query)));
  });
  return r;
}
