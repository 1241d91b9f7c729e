import type { App } from '../app.ts';
import type { WorkspaceAgent } from '../domain/agents/agent-service.ts';
import type { Agent, Workspace, WorkspaceRole } from '../domain/types.ts';

/**
 * Who is calling, resolved once when an MCP session opens. The tool list of a
 * session is built from it and stays fixed for the life of the session.
 */
export interface ToolContext {
  app: App;
  agent: Agent;
  workspace: Workspace;
  /** The caller's directory entry: its permissions in this workspace. */
  member: WorkspaceAgent;
  /** The agent owner's role in the workspace at connection time. */
  ownerRole: WorkspaceRole;
  /** Whether the owner holds a seat in the workspace's organization (writing documents needs one). */
  ownerHasSeat: boolean;
}
