import { z } from 'zod';
import { AGENT_INTAKE_ITEMS } from '../../core/intake/intake-service.ts';
import { INTAKE_KINDS, INTAKE_STATUSES } from '../../core/intake/intake-item.ts';
import { surface } from './messaging-schemas.ts';

const messageIds = z.array(z.string().min(1).max(64)).max(50);
const kind = z.enum(INTAKE_KINDS, { message: `kind must be one of: ${INTAKE_KINDS.join(', ')}` });
const status = z.enum(INTAKE_STATUSES, { message: `status must be one of: ${INTAKE_STATUSES.join(', ')}` });

export const fileIntakeInput = {
  title: z
    .string()
    .trim()
    .min(1, 'give the item a title')
    .max(200)
    .describe('A short title saying what is asked for, e.g. "Export drops accents in CSV"'),
  kind: kind.describe('complaint, bug, feature request or question'),
  summary: z
    .string()
    .trim()
    .max(4000)
    .default('')
    .describe('What was asked, in your own words: enough for whoever picks it up'),
  source_message_ids: messageIds
    .min(1, 'cite at least one source message')
    .describe(
      'Ids of the messages it came from (from check_inbox, subscribe or search_messages); their authors are told when it is done',
    ),
};

export const updateIntakeInput = {
  id: z.string().min(1).describe('The intake item id (from file_intake or list_intake)'),
  status: status
    .optional()
    .describe("New status: new, triaged, in progress, done or won't do. Done tells the people who asked, once"),
  note: z.string().trim().max(4000).optional().describe('A note to add (what was decided, where the work is)'),
  add_source_message_ids: messageIds.optional().describe('More messages asking for the same thing'),
};

export const listIntakeInput = {
  status: status.optional().describe('Only items in this status'),
  kind: kind.optional().describe('Only items of this kind'),
  surface: surface
    .optional()
    .describe('Only items with a source message from this surface (web, mcp, or a chat app: slack, teams, email)'),
  limit: z.number().int().min(1).max(100).default(30).describe('Most items to return, newest first (1 to 100)'),
  offset: z.number().int().min(0).default(0).describe('Skip this many (to read past a cut list: pass next_offset)'),
};

export const getIntakeInput = {
  id: z.string().min(1).describe('The intake item id'),
};

const source = z.object({
  message_id: z.string(),
  surface: surface,
  permalink: z.string().nullable().describe('Slack permalink, Teams deep link or web chat link; null when none exists'),
  excerpt: z.string().nullable().describe('The start of the message; null when you did not see that message yourself'),
  notified: z
    .boolean()
    .describe(
      "Whether its author's done notice is settled: told once, or not told because they opted out or are an agent",
    ),
});

const intakeItemOut = z.object({
  id: z.string(),
  title: z.string(),
  kind,
  status,
  summary: z.string(),
  filed_automatically: z.boolean().describe("True when Switchboard filed it from an unlinked person's request"),
  created_at: z.string(),
  updated_at: z.string(),
  sources: z.array(source),
  url: z
    .string()
    .describe('Its page in Switchboard; posted in Slack or Teams, the link shows the item to those who may see it'),
});

export const intakeDetailOut = {
  item: intakeItemOut.extend({ notes: z.array(z.object({ body: z.string(), at: z.string() })) }),
  told: z.number().int().optional().describe('How many people were just told it is done'),
};

export const listIntakeOutput = {
  items: z.array(intakeItemOut),
  counts: z
    .object({
      total: z.number().int(),
      by_status: z.record(z.string(), z.number().int()),
      by_source: z.record(z.string(), z.number().int()).describe('Items per surface their source messages came from'),
    })
    .describe('All the items you may see, whatever the filters'),
  truncated: z.boolean().describe('True when more items match after these; see next_offset'),
  next_offset: z.number().int().nullable().describe('The offset that reads on; null when nothing more matches'),
  older_not_searched: z
    .boolean()
    .describe(
      `True when you do not monitor the workspace and it holds more than its newest ${AGENT_INTAKE_ITEMS} items: older ones are not listed or counted (get_intake reads one by id)`,
    ),
};
