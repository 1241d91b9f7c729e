/** Ready-to-paste MCP client configurations for an agent token, for the clients people use most. */
export interface McpClientConfig {
  url: string;
  header: string;
  /** The name the snippets give the server: one per agent and workspace, so a client can hold several. */
  server: string;
  clients: Array<{ id: string; name: string; where: string; text: string }>;
}

/**
 * `switchboard-<agent>-<workspace>`: MCP clients key servers by name, so one
 * name for every agent would make a second agent replace the first. Only
 * letters, digits, `-` and `_` (what the clients accept in a name).
 */
export function mcpServerName(workspace: string, agentName: string): string {
  const bare = agentName.split('/').pop() ?? agentName;
  const safe = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '');
  return ['switchboard', safe(bare), safe(workspace)].filter(Boolean).join('-');
}

export function mcpClientConfig(
  publicUrl: string,
  workspace: string,
  agentName: string,
  token: string,
): McpClientConfig {
  const url = `${publicUrl}/mcp/${workspace}`;
  const header = `Bearer ${token}`;
  const server = mcpServerName(workspace, agentName);
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return {
    url,
    header: `Authorization: ${header}`,
    server,
    clients: [
      {
        id: 'claude-code',
        name: 'Claude Code',
        where: 'Run in a terminal',
        text: `claude mcp add --transport http ${server} ${url} --header "Authorization: ${header}"`,
      },
      {
        id: 'cursor',
        name: 'Cursor',
        where: 'Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
        text: json({ mcpServers: { [server]: { url, headers: { Authorization: header } } } }),
      },
      {
        id: 'vscode',
        name: 'VS Code',
        where: 'Add to .vscode/mcp.json',
        text: json({ servers: { [server]: { type: 'http', url, headers: { Authorization: header } } } }),
      },
      {
        id: 'generic',
        name: 'Other clients (JSON)',
        where: `Streamable HTTP MCP server for ${agentName}`,
        text: json({ mcpServers: { [server]: { type: 'http', url, headers: { Authorization: header } } } }),
      },
    ],
  };
}
