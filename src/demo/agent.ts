/**
 * The demo agent: a real MCP client of Switchboard, with no LLM behind it.
 *
 * It connects over Streamable HTTP with its own token, waits for messages with
 * `subscribe`, and answers each one in the conversation it came from:
 *   help    → what it can do
 *   agents  → who is in the workspace (through `list_agents`)
 *   else    → echoes the message
 *
 * `npm start` runs it inside the server (src/demo/index.ts); examples/demo-agent.ts runs it on its own against any
 * workspace. It imports nothing but the MCP SDK, so it can be copied as the start of another agent.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

export interface DemoAgentOptions {
  /** The workspace's MCP endpoint, e.g. http://localhost:3000/mcp/demo. */
  url: string;
  token: string;
  /** Stops the agent (it finishes the request in flight by aborting it). */
  signal?: AbortSignal;
  /** How long each `subscribe` waits (seconds, under 60). */
  waitSeconds?: number;
  log?: (message: string, details?: Record<string, unknown>) => void;
}

interface Received {
  id: string;
  body: string;
  sender: { kind: 'agent' | 'person'; display_name: string; address: string };
  conversation: { id: string; kind: string; title: string };
}

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: Array<{ type: string; text?: string }>;
}

// Markdown, the format every surface renders: a list needs its own lines.
export const HELP = [
  'Hi! I am the demo agent. I run on your machine as an MCP client, with no AI behind me. Try:',
  '',
  '- **help**: this message',
  '- **agents**: who is in this workspace',
  '- anything else: I echo it back',
  '',
  'Real agents connect the same way: create one on the Agents page and paste its MCP configuration into your client.',
].join('\n');

/** What the demo agent says to a message (mentions of anyone are ignored when reading the command). */
export async function answer(body: string, listAgents: () => Promise<string>): Promise<string> {
  const text = body
    .replace(/(^|\s)@[\w./-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const command = text.toLowerCase().replace(/[.!?]+$/, '');
  if (command === 'help' || command === '') return HELP;
  if (command === 'agents' || command === 'who is here') return listAgents();
  return `You said: "${text}"`;
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

const textOf = (r: ToolResult) => (r.content ?? []).map((c) => c.text ?? '').join('\n');

/** Connects, then answers messages until `signal` aborts; reconnects with backoff when the server goes away. */
export async function runDemoAgent(o: DemoAgentOptions): Promise<void> {
  const log = o.log ?? ((m, d) => console.log(m, d ?? ''));
  let backoff = 1000;
  while (!o.signal?.aborted) {
    // The newest protocol revision the server speaks (2026-07-28 with Switchboard's own).
    const client = new Client(
      { name: 'switchboard-demo-agent', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(o.url), {
      requestInit: { headers: { Authorization: `Bearer ${o.token}` } },
    });
    // Stopping closes the client, which ends the request in flight (one listener per connection, not per call).
    const onAbort = () => {
      void client.close();
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await client.connect(transport);
      log('demo agent connected', { url: o.url });
      backoff = 1000;
      const call = async (name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args }, { timeout: 70_000 })) as ToolResult;
      const listAgents = async () => {
        const r = await call('list_agents', {});
        const agents = (r.structuredContent?.agents ?? []) as Array<{
          address: string;
          display_name: string;
          kind: string;
          role: string;
        }>;
        if (!agents.length) return 'Nobody else is here yet.';
        return [
          'Here is who is in this workspace:',
          '',
          ...agents.map(
            (a) => `- ${a.display_name} (${a.kind === 'person' ? '@' : ''}${a.address})${a.role ? `: ${a.role}` : ''}`,
          ),
        ].join('\n');
      };
      while (!o.signal?.aborted) {
        const r = await call('subscribe', { timeout_seconds: o.waitSeconds ?? 25 });
        if (r.isError) throw new Error(textOf(r));
        for (const m of (r.structuredContent?.messages ?? []) as Received[]) {
          // Agents answer agents only when it helps; an echo between two bots helps no one.
          if (m.sender.kind !== 'person') continue;
          const body = await answer(m.body, listAgents);
          const sent = await call('send_message', { conversation: m.conversation.id, reply_to: m.id, body });
          if (sent.isError) log('demo agent could not answer', { reason: textOf(sent) });
        }
      }
    } catch (err) {
      if (o.signal?.aborted) break;
      log('demo agent lost its connection; retrying', { error: (err as Error).message, retryInMs: backoff });
      await pause(backoff, o.signal);
      backoff = Math.min(backoff * 2, 30_000);
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
      await client.close().catch(() => {});
    }
  }
}
