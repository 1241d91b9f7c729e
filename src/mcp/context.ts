import type { RequestStateCodec } from '@modelcontextprotocol/server';
import type { Core } from '../app-types.ts';
import type { WorkspaceAgent } from '../core/agents/agent-service.ts';
import type { Agent, Workspace, WorkspaceRole } from '../core/entities.ts';

/**
 * Who is calling, resolved once when an MCP session opens. The tool list of a
 * session is built from it and stays fixed for the life of the session.
 */
export interface ToolContext {
  /** The services the tools and resources use: never the App's store or infrastructure. */
  core: Core;
  agent: Agent;
  workspace: Workspace;
  /** The caller's directory entry: its permissions in this workspace. */
  member: WorkspaceAgent;
  /** The agent owner's role in the workspace at connection time. */
  ownerRole: WorkspaceRole;
  /** Whether the owner holds a seat in the workspace's organization (writing documents needs one). */
  ownerHasSeat: boolean;
  /**
   * Whether the token this session presents still authenticates the agent (false
   * once rotated). Waiting calls re-check it when a rotation wakes them. Absent
   * when the caller was not authenticated by a token (in-process tests).
   */
  stillAuthorized?: () => Promise<boolean>;
  /** True when nothing in front of the tools re-checks the token on each call (stdio), so every call checks `stillAuthorized`. */
  checkEachCall?: boolean;
  /**
   * The protocol family the server built on this context answers: `modern` for a 2026-07-28 client (each request
   * stands alone; a question for a person is asked in the call's own rounds), `legacy` for the revisions before it
   * (a session; questions are requests to the client). Absent means legacy.
   */
  era?: 'legacy' | 'modern';
  /**
   * Sends inbox updates from the start: for a 2026-07-28 client on a connection that lasts (stdio), which asks for
   * them with subscriptions/listen (answered by the SDK) rather than resources/subscribe.
   */
  pushInbox?: boolean;
  /** Key of the signature on what a call carries between its rounds: the same in every process (from the app's secret). */
  roundKey?: Uint8Array;
  /** Signs and checks what a call carries between its rounds; set by buildMcpServer. */
  rounds?: RequestStateCodec<RoundState>;
}

/** What request_approval carries from the round that asks the owner to the round that has their answer. */
export interface RoundState {
  approval: string;
}

/**
 * Resolves who is calling into which workspace. Throws NOT_FOUND for an unknown
 * workspace and NOT_PERMITTED (with the command that fixes it) for a non-member.
 */
export async function openToolContext(core: Core, agent: Agent, workspaceRef: string): Promise<ToolContext> {
  const workspace = await core.orgs.workspace(workspaceRef);
  const member = await core.agents.member(agent, workspace);
  const ownerHasSeat = await core.orgs.hasSeat(workspace.orgId, agent.ownerId);
  return { core, agent, workspace, member, ownerRole: member.ownerRole, ownerHasSeat };
}
