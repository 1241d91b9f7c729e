import { z } from 'zod';
import { AUDIENCE_LEVELS } from '../../core/linking/audience.ts';
import { MAX_BODY_CHARS } from '../../core/messaging/rules.ts';

/** Longest a `subscribe` may wait: under the 60 s after which MCP clients give up on a request. */
const MAX_WAIT_SECONDS = 55;
const DEFAULT_WAIT_SECONDS = 30;
const MAX_INBOX_LIMIT = 100;
const MAX_RECIPIENTS = 20;

const agentKind = z.enum(['agent', 'person']);
/** Where a message was written: `mcp`, `web`, or a chat surface by its name (`slack`, `teams`, `email`). */
export const surface = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be a surface name such as web, slack or email');

export const sender = z.object({
  name: z.string().describe("The agent's name, or the person's handle"),
  person: z.string().describe('Handle of the person who owns the agent (for a person: their own handle)'),
  kind: agentKind,
  display_name: z.string(),
  address: z.string().describe('What to put in send_message `to` to reach it'),
});

export const inboxItem = z.object({
  id: z.string().describe('Message id (use as `reply_to`)'),
  time: z.string().describe('When it was sent (ISO 8601, UTC)'),
  sender,
  conversation: z.object({
    id: z.string().describe('Pass as send_message `conversation` to reply in the same conversation or thread'),
    kind: z.enum(['dm', 'channel', 'thread', 'external']),
    title: z.string(),
  }),
  thread: z.string().nullable().describe('Id of the message this one replies to; null when it starts a thread'),
  surface: surface.describe('Where it was written: mcp, web, or a chat app (slack, teams, email)'),
  permalink: z.string().nullable().describe('Link to the message in Slack or Teams; null elsewhere'),
  asker: z.object({
    handle: z.string().nullable().describe('The person on whose behalf this chain of messages runs; null for a guest'),
    linked: z
      .boolean()
      .describe('False when the human behind it is an unlinked chat user (a guest with no access to anything private)'),
  }),
  audience: z
    .object({
      level: z
        .enum(AUDIENCE_LEVELS)
        .describe(
          'The least access every reader of the conversation holds here; guest when anyone is unlinked or cannot reach the workspace',
        ),
      members: z.number().int().describe('How many people read the conversation'),
      unlinked: z.number().int().describe('How many of them have not linked their chat account'),
    })
    .describe('Who reads the conversation: answer there only with what all of them may see'),
  overheard: z
    .boolean()
    .describe(
      'True when you only heard it as a listener of the channel: nobody addressed you, so do not answer there unless someone mentions you',
    ),
  body: z.string(),
});

export const inboxOutput = {
  messages: z.array(inboxItem),
  truncated: z.boolean().describe('True when more unread messages are waiting than were returned'),
  remaining: z.number().int().describe('Unread messages still waiting'),
  overheard: z
    .number()
    .int()
    .describe('How many of the returned messages you only overheard as a listener (addressed ones come first)'),
};

export const listAgentsInput = {};
export const listAgentsOutput = {
  you: z.string().describe('Your own address'),
  agents: z.array(
    z.object({
      name: z.string(),
      person: z.string(),
      display_name: z.string(),
      role: z.string().describe('One-line role'),
      kind: agentKind,
      address: z.string().describe('What to put in send_message `to`'),
      may_message: z.boolean().describe('Whether you may send it a message'),
    }),
  ),
};

const EMPTY_RECIPIENT = 'A recipient is empty; name an agent, owner/name or a person handle (list_agents shows them).';
const recipient = z
  .string()
  .min(1, EMPTY_RECIPIENT)
  .max(80, 'A recipient is at most 80 characters: an agent name, owner/name or a person handle.');
const recipients = z
  .array(recipient)
  .max(MAX_RECIPIENTS, `At most ${MAX_RECIPIENTS} recipients; send to the rest in another message.`);
/** One recipient as a string, or a list as JSON text (a name never starts with `[`). */
const recipientText = z.string().min(1, EMPTY_RECIPIENT).max(4000);

/**
 * `to` as a list of names. A string is one name, unless it is a JSON list:
 * clients that type arguments by a property's `type` alone (the MCP Inspector's
 * CLI) send a list as its JSON text when `to` may be a string or a list.
 */
function recipientList(to: string | string[] | undefined, ctx: z.RefinementCtx): string[] | undefined {
  if (typeof to !== 'string') return to;
  let list: unknown = [to];
  if (to.trimStart().startsWith('[')) {
    try {
      list = JSON.parse(to);
    } catch {
      list = null;
    }
  }
  const checked = recipients.safeParse(list);
  if (checked.success) return checked.data;
  ctx.addIssue({
    code: 'custom',
    message: Array.isArray(list)
      ? checked.error.issues[0].message
      : '`to` starts like a JSON list but is not one; send a list of names, or one name as a string.',
  });
  return z.NEVER;
}

/** A conversation id as an inbox item carries it; an empty one gets a sentence saying what to pass instead. */
export const conversationId = (what: string) =>
  z
    .string()
    .min(
      1,
      'The conversation id is empty; pass the conversation.id of a message from check_inbox or subscribe, or leave `conversation` out.',
    )
    .max(64)
    .optional()
    .describe(what);

export const sendMessageInput = {
  to: z
    .union([recipientText, recipients])
    .optional()
    .transform(recipientList)
    .describe(
      'Recipients: agent names, owner/name when a name is ambiguous, or person handles; one name or a list. Optional when `conversation` is given',
    ),
  conversation: conversationId(
    'Id of a conversation you received a message in, to reply there (e.g. the Slack thread)',
  ),
  body: z
    .string()
    .min(1, 'The body is empty; write something to send.')
    .max(MAX_BODY_CHARS, `The body is longer than ${MAX_BODY_CHARS} characters; split it or share a document instead.`)
    .describe(`Markdown, at most ${MAX_BODY_CHARS} characters`),
  reply_to: z
    .string()
    .min(1, 'reply_to is empty; pass the id of the message you answer, or leave it out.')
    .max(64)
    .optional()
    .describe('Id of the message you are answering'),
};
export const sendMessageOutput = {
  message_id: z.string().nullable().describe('Null when no recipient accepted it'),
  conversation_id: z.string().nullable(),
  recipients: z.array(
    z.object({
      to: z.string(),
      status: z.enum(['delivered', 'refused']),
      reason: z.string().optional(),
      rule: z.string().optional().describe('The rule that refused it'),
    }),
  ),
};

export const checkInboxInput = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_INBOX_LIMIT)
    .default(20)
    .describe(`Most messages to return (1 to ${MAX_INBOX_LIMIT})`),
};

export const subscribeInput = {
  timeout_seconds: z
    .number()
    .min(0)
    .max(MAX_WAIT_SECONDS)
    .default(DEFAULT_WAIT_SECONDS)
    .describe(`How long to wait for a message when none is unread (at most ${MAX_WAIT_SECONDS})`),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_INBOX_LIMIT)
    .default(20)
    .describe(`Most messages to return (1 to ${MAX_INBOX_LIMIT})`),
};
export const subscribeOutput = {
  ...inboxOutput,
  timed_out: z.boolean().describe('True when nothing arrived before the timeout; call subscribe again to keep waiting'),
};

export const searchInput = {
  query: z.string().min(1).max(500).describe('Words to find; supports "quoted phrases", OR and -exclusions'),
  from: z.string().max(80).optional().describe('Only messages from this agent or person'),
  conversation: conversationId('Only messages in this conversation'),
  since: z.iso.datetime({ offset: true }).optional().describe('Only messages at or after this time (ISO 8601)'),
  limit: z.number().int().min(1).max(50).default(10).describe('Most matches to return (1 to 50)'),
};
export const searchOutput = {
  results: z.array(
    z.object({
      id: z.string(),
      time: z.string(),
      sender,
      conversation_id: z.string(),
      snippet: z.string().describe('The matching words in context, marked with **'),
      body: z.string(),
      rank: z.number(),
    }),
  ),
};
