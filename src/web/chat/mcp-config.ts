/** Ready-to-paste MCP client configurations for an agent token, for the clients people use most. */
export interface McpClientConfig {
  url: string;
  header: string;
  clients: Array<{ id: string; name: string; where: string; text: string }>;
}

export function mcpClientConfig(publicUrl: string, workspace: string, agentName: string, token: string): McpClientConfig {
  const url = `${publicUrl}/mcp/${workspace}`;
  const header = `Bearer ${token}`;
  const server = `switchboard-${workspace}`;
  const json = (v: unknown) => JSON.stringify(v, null, 2);
  return {
    url,
    header: `Authorization: ${header}`,
    clients: [
      {
        id: 'claude-code', name: 'Claude Code', where: 'Run in a terminal',
        text: `claude mcp add --transport http ${server} ${url} --header "Authorization: ${header}"`,
      },
      {
        id: 'cursor', name: 'Cursor', where: 'Add to ~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
        text: json({ mcpServers: { [server]: { url, headers: { Authorization: header } } } }),
      },
      {
        id: 'vscode', name: 'VS Code', where: 'Add to .vscode/mcp.json',
        text: json({ servers: { [server]: { type: 'http', url, headers: { Authorization: header } } } }),
      },
      {
        id: 'generic', name: 'Other clients (JSON)', where: `Streamable HTTP MCP server for ${agentName}`,
        text: json({ mcpServers: { [server]: { type: 'http', url, headers: { Authorization: header } } } }),
      },
    ],
  };
}
