import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import { WRITING_TOOLS } from '../../core/documents/rules.ts';
import type { DocumentAccess } from '../../core/documents/document.ts';
import { notPermitted, type SwitchboardError } from '../../core/errors.ts';
import type { Workspace } from '../../core/entities.ts';
import { wrapToolCalls } from './raw-tool-call.ts';

/**
 * Answers calls to `names` (tools this session may not list) with `refuse`,
 * instead of the SDK's bare "Tool … not found" or "disabled", so an agent learns
 * why and whom to ask; `refuse` answers null to let the call go on (the tool is
 * listed now). Call it after registering tools; false when it could not attach.
 */
export function refuseWithheldTools(
  server: McpServer,
  names: readonly string[],
  refuse: (name: string) => Promise<CallToolResult | null>,
): boolean {
  return wrapToolCalls(server, async (request, extra, next) => {
    const name = request.params?.name;
    if (typeof name !== 'string' || !names.includes(name)) return next(request, extra);
    return (await refuse(name)) ?? next(request, extra);
  });
}

/** The refusal for a writing tool the owner's role does not give: the role it needs, and the command that gives it. */
export function roleRefusal(access: DocumentAccess, ws: Pick<Workspace, 'slug'>, tool: string): SwitchboardError {
  const needs = (WRITING_TOOLS as readonly string[]).includes(tool) ? 'editor' : 'owner';
  const an = (role: string) => `${role === 'viewer' ? 'a' : 'an'} ${role}`;
  const who = access.personHandle;
  const seat = access.hasSeat
    ? ''
    : `, and an admin can assign the seat writing also needs with \`switchboard seat grant ${who} --org ${access.org.slug}\``;
  return notPermitted(
    `@${who} is ${an(access.role)} of the workspace ${ws.slug}, and ${tool} needs ${an(needs)}. ` +
      `A workspace owner or an admin of ${access.org.name} can make @${who} ${an(needs)} with \`switchboard member add ${ws.slug} ${who} --role ${needs}\`${seat}; ` +
      'the tool then works in this session, and the reading tools work meanwhile.',
    { role: access.role, needs },
  );
}
