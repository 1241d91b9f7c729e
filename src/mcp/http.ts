import type { Mount } from '../web/http.ts';

/** `/mcp/:workspace`: MCP over Streamable HTTP (filled in by the MCP issue). */
export const mountMcp: Mount = () => {};
