import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { documentToolset, seatRefusal, type DocumentToolName } from '../../core/documents/rules.ts';
import type { DocumentAccess } from '../../core/documents/document.ts';
import type { ToolContext } from '../context.ts';
import { refusalResult, toRefusal } from '../errors.ts';
import {
  collectionInstructionsInput,
  collectionOutput,
  createCollectionInput,
  createInput,
  getInput,
  getOutput,
  listInput,
  listOutput,
  searchInput,
  searchOutput,
  typesInput,
  typesOutput,
  updateInput,
  workspaceInfoInput,
  workspaceInfoOutput,
  workspaceInstructionsInput,
  workspaceInstructionsOutput,
  writeOutput,
} from './document-schemas.ts';
import {
  collectionOut,
  documentOut,
  documentText,
  instructionsText,
  keysOf,
  summariesText,
  summaryOut,
} from './document-render.ts';
import { refuseWithheldTools, roleRefusal } from './withheld-tools.ts';
import { ok, recordAudit, runTool } from './run.ts';

/** The tool's first, misspelt name, still answered as an alias. */
export const DEPRECATED_INFORMATION_TOOL = 'get_workspace_informations';

/**
 * The caller's standing as it is now, with the names refusals use: every document call checks it, so an agent taken
 * out of the workspace (or whose owner left it, lost a role or a seat) is refused from its next call, not when its
 * session ends. (The session's list of writing tools follows it: see registerDocumentTools.)
 */
async function currentAccess(ctx: ToolContext): Promise<DocumentAccess> {
  const { core, agent, workspace: ws } = ctx;
  const member = await core.agents.member(agent, ws);
  const hasSeat = await core.orgs.hasSeat(ws.orgId, agent.ownerId);
  return (await core.documents.access(ws, agent.ownerId, agent.id, { role: member.ownerRole, hasSeat }))!;
}

/** What the workspace shows agents, and the instructions text built from it, for the standing of the moment. */
async function overview(ctx: ToolContext, access: DocumentAccess) {
  const { core, workspace } = ctx;
  const ws = (await core.orgs.findWorkspace(workspace.id)) ?? workspace;
  const collections = await core.documents.visibleCollections(ws);
  const statuses = ws.kind === 'simplified' ? (await core.documents.hiddenCollection(ws)).statuses : null;
  const tools = documentToolset(ws.kind, access.role, access.hasSeat);
  const seatNote = tools.withheldForSeat.length ? seatRefusal(access).message : null;
  return {
    ws,
    collections,
    statuses,
    tools,
    access,
    seatNote,
    text: instructionsText(ws, collections, statuses, tools, seatNote),
  };
}

/** Collection or workspace instructions sent as the server's instructions on connect. */
export async function documentInstructions(ctx: ToolContext): Promise<string> {
  return (await overview(ctx, await currentAccess(ctx))).text;
}

/**
 * Registers the document tools: every role reads; the owner's role and seat add the writing tools. Those are
 * registered for every role but listed only while the standing of the moment gives them: each document call
 * re-reads it and lists or unlists them (the SDK tells the client with notifications/tools/list_changed), so a seat
 * or role granted mid-session needs no new session. A call to an unlisted one gets a refusal naming the missing
 * seat or role and how to get it, or runs when the standing gives it now.
 */
export function registerDocumentTools(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;
  const structured = ws.kind === 'structured';
  const writing = new Map<DocumentToolName, RegisteredTool>();
  const writingTool = (name: DocumentToolName, tool: RegisteredTool) => writing.set(name, tool);
  const access = async () => {
    const a = await currentAccess(ctx);
    const now = documentToolset(ws.kind, a.role, a.hasSeat).granted;
    const changed = [...writing].filter(([name, tool]) => tool.enabled !== now.includes(name));
    for (const [name, tool] of changed) tool.enabled = now.includes(name);
    // Set here rather than with enable(), whose notice the SDK sends without catching a failure (a closed stream).
    if (changed.length && server.isConnected()) {
      server.server
        .sendToolListChanged()
        .catch((err: unknown) => core.logger.warn({ err }, 'could not tell the client its tool list changed'));
    }
    return a;
  };
  const keys = async () => keysOf(await core.documents.allCollections(ws));
  const audit = (action: string, target: string, result: string) =>
    recordAudit(ctx, action, { target, result, onBehalfOf: agent.ownerId });

  const information = async () => {
    const o = await overview(ctx, await access());
    return ok(
      {
        name: o.ws.name,
        slug: o.ws.slug,
        kind: o.ws.kind,
        description: o.ws.description,
        instructions: o.ws.instructions,
        collections: o.collections.map(collectionOut),
        statuses: o.statuses,
        access: {
          role: o.access.role,
          has_seat: o.access.hasSeat,
          tools: o.tools.granted,
          withheld_for_seat: o.tools.withheldForSeat,
          note: o.seatNote,
        },
      },
      o.text,
    );
  };
  const informationDescription =
    "Start here: the workspace's name, description and instructions" +
    (structured
      ? ', and its collections with their identifiers, statuses and instructions.'
      : ', and the document statuses.');
  server.registerTool(
    'get_workspace_information',
    {
      title: 'Workspace information',
      description: informationDescription,
      inputSchema: z.object(workspaceInfoInput),
      outputSchema: z.object(workspaceInfoOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'get_workspace_information', information),
  );
  // The first release spelled it this way; agents configured with that name keep working.
  server.registerTool(
    DEPRECATED_INFORMATION_TOOL,
    {
      title: 'Workspace information (old name)',
      description: `Deprecated name of get_workspace_information, kept for agents that still call it; call get_workspace_information instead. ${informationDescription}`,
      inputSchema: z.object(workspaceInfoInput),
      outputSchema: z.object(workspaceInfoOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, DEPRECATED_INFORMATION_TOOL, information),
  );

  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description:
        `The documents of ${structured ? 'one collection' : 'this workspace'}, most recently updated first: title and summary, never the content. ` +
        'Filter by status; archived documents only when include_archived is true. Says when it cut a long list (truncated, next_offset).',
      inputSchema: z.object(listInput(structured)),
      outputSchema: z.object(listOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(
      ctx,
      'list_documents',
      async (args: {
        collection?: string;
        status?: string;
        include_archived: boolean;
        limit: number;
        offset: number;
      }) => {
        await access();
        const r = await core.documents.list(ws, {
          collection: args.collection,
          status: args.status,
          includeArchived: args.include_archived,
          limit: args.limit,
          offset: args.offset,
        });
        const k = keysOf([r.collection]);
        const documents = r.items.map((d) => summaryOut(d, k));
        const nextOffset = r.truncated ? args.offset + r.items.length : null;
        const head =
          `${r.total} document${r.total === 1 ? '' : 's'}${r.collection.hidden ? '' : ` in ${r.collection.key}`}` +
          (r.truncated
            ? `; showing ${documents.length} from ${args.offset}. The list was cut: call again with offset ${nextOffset}, or narrow it with status.`
            : '.');
        return ok(
          {
            collection: r.collection.hidden ? null : r.collection.key,
            documents,
            total: r.total,
            truncated: r.truncated,
            next_offset: nextOffset,
          },
          `${head}\n${summariesText(documents, 'No documents match.')}`,
        );
      },
    ),
  );

  server.registerTool(
    'search_documents',
    {
      title: 'Search documents',
      description:
        'Searches titles, summaries and identifiers (never the content)' +
        (structured ? ', in one collection or the whole workspace.' : '.') +
        ' Archived documents only when include_archived is true.',
      inputSchema: z.object(searchInput(structured)),
      outputSchema: z.object(searchOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(
      ctx,
      'search_documents',
      async (args: { query: string; collection?: string; include_archived: boolean; limit: number }) => {
        await access();
        const hits = await core.documents.search(ws, {
          text: args.query,
          collection: args.collection,
          includeArchived: args.include_archived,
          limit: args.limit,
        });
        const k = await keys();
        const documents = hits.map((d) => summaryOut(d, k));
        return ok(
          { documents },
          summariesText(
            documents,
            'No document title, summary or identifier matches; try other words (content is not searched).',
          ),
        );
      },
    ),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Read a document',
      description:
        'One document in full, content included; archived documents too. Its updated_at is what update_document needs.',
      inputSchema: z.object(getInput),
      outputSchema: z.object(getOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'get_document', async (args) => {
      await access();
      const doc = await core.documents.get(ws, args.document);
      // Read for a conversation: refused when its audience could not read it; either way noted, so it is not posted somewhere wider.
      await core.audiences.documentRead(agent, ws, doc, args.conversation);
      const out = documentOut(doc, await keys());
      return ok(out, documentText(out));
    }),
  );

  writingTool(
    'create_document',
    server.registerTool(
      'create_document',
      {
        title: 'Create a document',
        description: `Creates a document${structured ? ' in a collection' : ''}. Write a summary: it is what agents read before opening a document.`,
        inputSchema: z.object(createInput(structured)),
        outputSchema: z.object(writeOutput),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      runTool(
        ctx,
        'create_document',
        async ({
          conversation,
          ...args
        }: {
          collection?: string;
          title: string;
          summary: string;
          content: string;
          status?: string;
          conversation?: string;
        }) => {
          if (conversation) await core.audiences.assertAskerMay(agent, ws, conversation, 'create a document');
          const doc = await core.documents.create(ws, await access(), args);
          await audit('create_document', doc.identifier, 'created');
          const out = summaryOut(doc, await keys());
          return ok(out, `Created ${out.identifier} "${out.title}" [${out.status}], updated_at ${out.updated_at}.`);
        },
        (args) => args.collection ?? null,
      ),
    ),
  );

  writingTool(
    'update_document',
    server.registerTool(
      'update_document',
      {
        title: 'Update a document',
        description:
          'Changes a document (title, summary, content, status), archives it (archived: true) or brings it back (archived: false). ' +
          'Pass the updated_at of the version you read: if someone wrote since, the update is refused with the current updated_at; read again and redo your change.',
        // Replaces content or archives: destructive. A repeat carries an updated_at gone stale and is refused, so it changes nothing more.
        inputSchema: z.object(updateInput),
        outputSchema: z.object(writeOutput),
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      runTool(
        ctx,
        'update_document',
        async (args) => {
          const { document, updated_at, conversation, ...patch } = args;
          if (conversation) await core.audiences.assertAskerMay(agent, ws, conversation, `change ${document}`);
          const doc = await core.documents.update(ws, await access(), {
            document,
            readUpdatedAt: new Date(updated_at),
            patch,
          });
          const what = patch.archived === true ? 'Archived' : patch.archived === false ? 'Unarchived' : 'Updated';
          await audit('update_document', doc.identifier, what.toLowerCase());
          const out = summaryOut(doc, await keys());
          return ok(out, `${what} ${out.identifier}; its updated_at is now ${out.updated_at}.`);
        },
        (args) => args.document,
      ),
    ),
  );

  if (structured) {
    writingTool(
      'get_available_collection_types',
      server.registerTool(
        'get_available_collection_types',
        {
          title: 'Collection types',
          description:
            'The kinds of collection that can be opened, with their default statuses, and which ones this workspace already has.',
          inputSchema: z.object(typesInput),
          outputSchema: z.object(typesOutput),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        runTool(ctx, 'get_available_collection_types', async () => {
          await access();
          const types = (await core.documents.availableTypes(ws)).map((t) => ({
            type: t.type,
            name: t.name,
            description: t.description,
            identifier_prefix: t.prefix,
            default_statuses: t.defaultStatuses,
            existing: t.existing,
          }));
          return ok(
            { types },
            types
              .map(
                (t) =>
                  `- ${t.type}: ${t.description} Statuses: ${t.default_statuses.join(', ')}.${t.existing.length ? ` Already here: ${t.existing.join(', ')}.` : ''}`,
              )
              .join('\n'),
          );
        }),
      ),
    );

    writingTool(
      'create_collection',
      server.registerTool(
        'create_collection',
        {
          title: 'Create a collection',
          description:
            'Opens a collection of a catalogue type, with a name and its statuses (defaults from the type). It shows to agents in their next session.',
          inputSchema: z.object(createCollectionInput),
          outputSchema: z.object(collectionOutput),
          annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
        },
        runTool(
          ctx,
          'create_collection',
          async (args) => {
            const c = await core.documents.createCollection(ws, await access(), args);
            await audit('create_collection', c.key, 'created');
            return ok(
              collectionOut(c),
              `Opened the collection ${c.key} ("${c.name}", statuses: ${c.statuses.join(', ')}).`,
            );
          },
          (args) => args.name ?? args.type,
        ),
      ),
    );

    writingTool(
      'update_collection_instructions',
      server.registerTool(
        'update_collection_instructions',
        {
          title: 'Write collection instructions',
          description: 'Replaces the instructions of a collection: every agent receives them when it connects.',
          inputSchema: z.object(collectionInstructionsInput),
          outputSchema: z.object(collectionOutput),
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        runTool(
          ctx,
          'update_collection_instructions',
          async (args) => {
            const c = await core.documents.setCollectionInstructions(
              ws,
              await access(),
              args.collection,
              args.instructions,
            );
            await audit('update_collection_instructions', c.key, 'updated');
            return ok(
              collectionOut(c),
              `Updated the instructions of ${c.key}; agents receive them from their next session.`,
            );
          },
          (args) => args.collection,
        ),
      ),
    );
  } else {
    writingTool(
      'update_workspace_instructions',
      server.registerTool(
        'update_workspace_instructions',
        {
          title: 'Write workspace instructions',
          description: 'Replaces the instructions of this workspace: every agent receives them when it connects.',
          inputSchema: z.object(workspaceInstructionsInput),
          outputSchema: z.object(workspaceInstructionsOutput),
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        runTool(
          ctx,
          'update_workspace_instructions',
          async (args) => {
            const w = await core.documents.setWorkspaceInstructions(ws, await access(), args.instructions);
            await audit('update_workspace_instructions', w.slug, 'updated');
            return ok(
              { name: w.name, instructions: w.instructions },
              'Updated the workspace instructions; agents receive them from their next session.',
            );
          },
          () => ws.slug,
        ),
      ),
    );
  }

  // Listed as the standing was when the session opened (before connecting: nothing to notify).
  const granted = documentToolset(ws.kind, ctx.ownerRole, ctx.ownerHasSeat).granted;
  for (const [name, tool] of writing) tool.enabled = granted.includes(name);
  const wrapped = refuseWithheldTools(server, [...writing.keys()], async (name) => {
    const tool = writing.get(name as DocumentToolName)!;
    if (tool.enabled) return null;
    try {
      const a = await access();
      if (tool.enabled) return null; // given since the session opened: the SDK runs it, and it checks again
      throw documentToolset(ws.kind, a.role, a.hasSeat).withheldForSeat.includes(name as DocumentToolName)
        ? seatRefusal(a)
        : roleRefusal(a, ws, name);
    } catch (e) {
      const refusal = toRefusal(e, core.logger, name);
      await audit(name, ws.slug, `refused: ${refusal.code}`);
      return refusalResult(refusal);
    }
  });
  if (!wrapped)
    core.logger.warn(
      { tools: [...writing.keys()] },
      'could not attach the refusals to withheld document tools; the instructions still explain a missing seat',
    );
}
