import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AGENT_INTAKE_ITEMS, type IntakeDetail } from '../../core/intake/intake-service.ts';
import type { IntakeItem, IntakeSource } from '../../core/intake/intake-item.ts';
import { itemLink } from '../../core/previews/links.ts';
import { seesExcerpt, type IntakeReader } from '../../core/intake/visibility.ts';
import type { ToolContext } from '../context.ts';
import {
  fileIntakeInput,
  getIntakeInput,
  intakeDetailOut,
  listIntakeInput,
  listIntakeOutput,
  updateIntakeInput,
} from './intake-schemas.ts';
import { ok, recordAudit, runTool } from './run.ts';

/** The intake tools: file_intake, update_intake, list_intake, get_intake. */
export function registerIntakeTools(server: McpServer, ctx: ToolContext): void {
  const { core, agent, workspace: ws } = ctx;
  // Which items an agent reads, and which excerpts, is decided in core/intake/visibility.ts: intake never widens who reads what.
  // An item it filed itself may cite messages it did not see (added by others, or once monitored): their excerpts stay hidden.
  const itemOut = async (r: IntakeReader, i: IntakeItem & { sources: IntakeSource[] }) => ({
    id: i.id,
    title: i.title,
    kind: i.kind,
    status: i.status,
    summary: i.summary,
    filed_automatically: i.filedBy === null,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    sources: await Promise.all(
      i.sources.map(async (s) => ({
        message_id: s.messageId,
        surface: s.surface,
        permalink: s.permalink,
        notified: s.notifiedAt !== null,
        excerpt: (await seesExcerpt(r, s)) ? s.excerpt : null,
      })),
    ),
    url: itemLink(core.config.publicUrl, ws, 'intake', i.id),
  });
  const detailOut = async (r: IntakeReader, d: IntakeDetail) => ({
    ...(await itemOut(r, d)),
    notes: d.notes.map((n) => ({ body: n.body, at: n.createdAt.toISOString() })),
  });
  const line = (i: {
    id: string;
    title: string;
    kind: string;
    status: string;
    sources: Array<{ permalink: string | null }>;
  }) =>
    `- [${i.id}] ${i.title} (${i.kind}, ${i.status}; ${i.sources.length} source${i.sources.length === 1 ? '' : 's'}${i.sources[0]?.permalink ? `: ${i.sources[0].permalink}` : ''})`;

  server.registerTool(
    'file_intake',
    {
      title: 'File an intake item',
      description:
        'Record what someone asked for (a complaint, bug, feature request or question) from messages you received or overheard. ' +
        'Cite the messages: their authors are told, once, when the item is done.',
      inputSchema: z.object(fileIntakeInput),
      outputSchema: z.object(intakeDetailOut),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    runTool(
      ctx,
      'file_intake',
      async (args) => {
        const d = await core.intake.file(agent, ws, {
          title: args.title,
          kind: args.kind,
          summary: args.summary,
          sourceIds: args.source_message_ids,
        });
        await recordAudit(ctx, 'file_intake', {
          target: d.id,
          result: 'filed',
          details: { title: d.title, kind: d.kind, sources: d.sources.length },
          onBehalfOf: agent.ownerId,
        });
        const item = await detailOut(await core.intake.readerFor(agent, ws), d);
        return ok({ item }, `Filed intake item ${d.id}:\n${line(item)}`);
      },
      (args) => args.title,
    ),
  );

  server.registerTool(
    'update_intake',
    {
      title: 'Update an intake item',
      description:
        "Change an intake item's status (new, triaged, in progress, done, won't do), add a note, or add source messages. " +
        'Marking it done tells each person who asked, in the thread where they asked, once.',
      inputSchema: z.object(updateIntakeInput),
      outputSchema: z.object(intakeDetailOut),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    },
    runTool(
      ctx,
      'update_intake',
      async (args) => {
        const r = await core.intake.update(agent, ws, {
          id: args.id,
          status: args.status,
          note: args.note,
          addSourceIds: args.add_source_message_ids,
        });
        await recordAudit(ctx, 'update_intake', {
          target: args.id,
          result: 'updated',
          onBehalfOf: agent.ownerId,
          details: {
            status: args.status ?? null,
            previous: r.previous,
            note: Boolean(args.note),
            added_sources: args.add_source_message_ids?.length ?? 0,
            told: r.told,
          },
        });
        const item = await detailOut(await core.intake.readerFor(agent, ws), r.item);
        const change = args.status && args.status !== r.previous ? `status ${r.previous} → ${args.status}` : 'updated';
        const told = r.told ? ` ${r.told} ${r.told === 1 ? 'person was' : 'people were'} told it is done.` : '';
        return ok({ item, told: r.told }, `Intake item ${r.item.id}: ${change}.${told}\n${line(item)}`);
      },
      (args) => args.id,
    ),
  );

  server.registerTool(
    'list_intake',
    {
      title: 'List intake',
      description:
        'Intake items of this workspace you may see (from messages you sent, received or overheard, or all if you monitor it), newest first, ' +
        'with counts per status and per source surface. Filter by status, kind or surface. Says when it cut a long list (truncated, next_offset). ' +
        `Without monitor, only the workspace's newest ${AGENT_INTAKE_ITEMS} items are looked at (older_not_searched says when there are more).`,
      inputSchema: z.object(listIntakeInput),
      outputSchema: z.object(listIntakeOutput),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'list_intake', async (args) => {
      const reader = await core.intake.readerFor(agent, ws);
      const { items, counts, truncated, capped } = await core.intake.listFor(reader, ws, args);
      const out = await Promise.all(items.map((i) => itemOut(reader, i)));
      const nextOffset = truncated ? args.offset + out.length : null;
      const text = out.length ? out.map(line).join('\n') : 'No intake items match.';
      const cut = truncated
        ? ` Showing ${out.length} from ${args.offset}. The list was cut: call again with offset ${nextOffset}, or narrow it with status, kind or surface.`
        : '';
      const older = capped
        ? ` Only the workspace's newest ${AGENT_INTAKE_ITEMS} items were looked at; read an older one by id with get_intake.`
        : '';
      return ok(
        {
          items: out,
          counts: { total: counts.total, by_status: counts.byStatus, by_source: counts.bySurface },
          truncated,
          next_offset: nextOffset,
          older_not_searched: capped,
        },
        `${text}\n(${counts.total} in all.${cut}${older})`,
      );
    }),
  );

  server.registerTool(
    'get_intake',
    {
      title: 'Get an intake item',
      description:
        'One intake item with its source messages (links to each), notes and whether each person who asked was told it is done.',
      inputSchema: z.object(getIntakeInput),
      outputSchema: z.object(intakeDetailOut),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    runTool(ctx, 'get_intake', async (args) => {
      const reader = await core.intake.readerFor(agent, ws);
      const item = await detailOut(reader, await core.intake.detailFor(reader, ws, args.id));
      const sources = item.sources.map(
        (s) =>
          `  - ${s.surface}${s.permalink ? ` ${s.permalink}` : ''}${s.excerpt ? `: ${s.excerpt}` : ''}${s.notified ? ' (told)' : ''}`,
      );
      const notes = item.notes.map((n) => `  - ${n.at}: ${n.body}`);
      return ok(
        { item },
        [
          line(item),
          item.summary && `  ${item.summary}`,
          'Sources:',
          ...sources,
          ...(notes.length ? ['Notes:', ...notes] : []),
        ]
          .filter(Boolean)
          .join('\n'),
      );
    }),
  );
}
