import { z } from 'zod';
import { COLLECTION_TYPES } from '../../core/documents/catalogue.ts';
import { LIST_MAX } from '../../core/documents/document-service.ts';
import { LIMITS } from '../../core/documents/rules.ts';
import { conversationId } from './messaging-schemas.ts';

const collectionRef = z
  .string()
  .min(1)
  .max(100)
  .describe('Collection identifier, from get_workspace_information (e.g. "specs")');
const documentRef = z.string().min(1).max(100).describe('Document identifier such as SPEC-12 (or its id)');
const statusArg = z
  .string()
  .min(1)
  .max(LIMITS.status)
  .describe('A status the collection allows (see get_workspace_information)');

const documentSummary = z.object({
  id: z.string(),
  identifier: z.string().describe('Stable identifier, e.g. SPEC-12'),
  collection: z.string().nullable().describe('Identifier of its collection; null in a Simplified workspace'),
  title: z.string(),
  summary: z.string(),
  status: z.string(),
  archived: z.boolean(),
  updated_at: z.string().describe('Version of the document (ISO 8601); pass it to update_document'),
  updated_by: z.string().nullable().describe('Who wrote last'),
});

const documentFull = documentSummary.extend({
  content: z.string().describe('Markdown'),
  created_at: z.string(),
});

const collectionOut = z.object({
  identifier: z.string().describe('Pass as `collection`'),
  name: z.string(),
  type: z.string(),
  statuses: z.array(z.string()).describe('Allowed statuses; the first is the default'),
  instructions: z.string(),
});

export const workspaceInfoInput = {};
export const workspaceInfoOutput = {
  name: z.string(),
  slug: z.string(),
  kind: z.enum(['simplified', 'structured']),
  description: z.string(),
  instructions: z.string().describe('Workspace instructions'),
  collections: z.array(collectionOut).describe('Structured workspaces only; empty in a Simplified one'),
  statuses: z
    .array(z.string())
    .nullable()
    .describe('Document statuses of a Simplified workspace; null in a Structured one (see each collection)'),
  access: z.object({
    role: z.enum(['owner', 'editor', 'viewer']).describe("Your owner's role here now"),
    has_seat: z.boolean().describe('Whether your owner holds a seat now'),
    tools: z
      .array(z.string())
      .describe("The document tools this session lists now: they follow your owner's role and seat, also mid-session"),
    withheld_for_seat: z.array(z.string()).describe('Tools the role allows but the missing seat withholds'),
    note: z.string().nullable(),
  }),
};

const listBase = {
  status: statusArg.optional().describe('Only documents with this status'),
  include_archived: z.boolean().default(false).describe('Also list archived documents'),
  limit: z.number().int().min(1).max(LIST_MAX).default(50).describe(`Most documents to return (1 to ${LIST_MAX})`),
  offset: z.number().int().min(0).default(0).describe('Skip this many (to read past a cut list)'),
};
export const listInput = (structured: boolean) => (structured ? { collection: collectionRef, ...listBase } : listBase);
export const listOutput = {
  collection: z.string().nullable(),
  documents: z.array(documentSummary),
  total: z.number().int().describe('Documents matching the filters'),
  truncated: z.boolean().describe('True when the list was cut; see next_offset'),
  next_offset: z.number().int().nullable(),
};

const searchBase = {
  query: z
    .string()
    .min(1)
    .max(200)
    .describe('Words from titles or summaries, or an identifier; content is not searched'),
  include_archived: z.boolean().default(false).describe('Also find archived documents'),
  limit: z.number().int().min(1).max(50).default(20).describe('Most documents to return (1 to 50)'),
};
export const searchInput = (structured: boolean) =>
  structured
    ? {
        ...searchBase,
        collection: collectionRef.optional().describe('Limit to one collection; omit to search the whole workspace'),
      }
    : searchBase;
export const searchOutput = { documents: z.array(documentSummary) };

/** The conversation an agent reads or writes for (account linking and audiences: see linking/audience-service.ts). */
const forConversation = conversationId;
export const getInput = {
  document: documentRef,
  conversation: forConversation(
    'The conversation you read it for (the id on an inbox item): refused when someone reading that conversation could not read this document',
  ),
};
export const getOutput = documentFull.shape;

const fields = {
  title: z.string().min(1).max(LIMITS.title).describe(`A short title, at most ${LIMITS.title} characters`),
  summary: z.string().max(LIMITS.summary).describe('One or two sentences: what agents read before deciding to open it'),
  content: z.string().max(LIMITS.content).describe('Markdown'),
};
const createBase = {
  ...fields,
  content: fields.content.default(''),
  status: statusArg.optional().describe('Defaults to the first status'),
  conversation: forConversation(
    'The conversation you create it for: refused when the person who asked there could not create it themselves',
  ),
};
export const createInput = (structured: boolean) =>
  structured ? { collection: collectionRef, ...createBase } : createBase;
export const writeOutput = documentSummary.shape;

export const updateInput = {
  document: documentRef,
  conversation: forConversation(
    'The conversation you make the change for: refused when the person who asked there could not make it themselves',
  ),
  updated_at: z.iso
    .datetime({ offset: true })
    .describe('The updated_at of the version you read (from get_document or list_documents)'),
  title: fields.title.optional().describe('A new title; leave it out to keep the old one'),
  summary: fields.summary.optional().describe('A new summary; leave it out to keep the old one'),
  content: fields.content.optional().describe('The whole new content (Markdown), replacing the old'),
  status: statusArg.optional().describe('A new status the collection allows; leave it out to keep the old one'),
  archived: z.boolean().optional().describe('true archives the document, false brings it back'),
};

export const typesInput = {};
export const typesOutput = {
  types: z.array(
    z.object({
      type: z.string(),
      name: z.string(),
      description: z.string(),
      identifier_prefix: z.string(),
      default_statuses: z.array(z.string()),
      existing: z.array(z.string()).describe('Collections of this workspace with this type'),
    }),
  ),
};

const typeNames = COLLECTION_TYPES.map((t) => t.type) as [string, ...string[]];
export const createCollectionInput = {
  type: z.enum(typeNames).describe('From get_available_collection_types'),
  name: z
    .string()
    .min(1)
    .max(LIMITS.collectionName)
    .optional()
    .describe("Defaults to the type's name; its identifier is derived from it"),
  statuses: z
    .array(statusArg)
    .min(1)
    .max(LIMITS.statuses)
    .optional()
    .describe("Defaults to the type's statuses; the first is the default"),
  instructions: z.string().max(LIMITS.instructions).optional().describe('What agents should know when writing here'),
};
export const collectionOutput = collectionOut.shape;

const instructionsArg = z
  .string()
  .max(LIMITS.instructions)
  .describe('The whole new instructions (Markdown), replacing the old; every agent receives them when it connects');
export const collectionInstructionsInput = { collection: collectionRef, instructions: instructionsArg };
export const workspaceInstructionsInput = { instructions: instructionsArg };
export const workspaceInstructionsOutput = { name: z.string(), instructions: z.string() };
