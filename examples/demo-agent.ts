/**
 * Runs the demo agent on its own: a real MCP client of Switchboard, with no LLM behind it.
 *
 * It connects over Streamable HTTP with its own token, waits for messages with
 * `subscribe`, and answers each one in the conversation it came from with
 * `send_message` (help, agents, or an echo). Its code is src/demo/agent.ts,
 * which `npm start` also runs inside the server; it imports nothing but the MCP
 * SDK, so it can be copied as the start of another agent.
 *
 *   SWITCHBOARD_URL=http://localhost:3000/mcp/demo SWITCHBOARD_TOKEN=sb_… npx tsx examples/demo-agent.ts
 */
import { runDemoAgent } from '../src/demo/agent.ts';

const url = process.env.SWITCHBOARD_URL;
const token = process.env.SWITCHBOARD_TOKEN;
if (!url || !token) {
  console.error("Set SWITCHBOARD_URL (e.g. http://localhost:3000/mcp/demo) and SWITCHBOARD_TOKEN (the agent's token).");
  process.exit(2);
}
const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.once('SIGTERM', () => stop.abort());
await runDemoAgent({ url, token, signal: stop.signal });
