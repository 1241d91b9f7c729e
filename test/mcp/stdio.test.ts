import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { createMcpMount } from '../../src/mcp/http.ts';
import { startServer } from '../../src/server.ts';
import { makeWorld, silent, testConfig, type World } from './support/world.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/switchboard.mjs');
const run = promisify(execFile);

/** The child's environment: this config's data directory, never a shared database. */
function childEnv(config: Config, extra: Record<string, string>): Record<string, string> {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...env, DATA_DIR: config.dataDir, SWITCHBOARD_SECRET: config.secret!, LOG_LEVEL: 'info', ...extra };
}

/** `switchboard mcp-stdio` as a child process, driven by the SDK's own stdio client. */
async function spawnStdio(config: Config, w: World, token: string, extra: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath, args: [BIN, 'mcp-stdio', '--workspace', w.ws.slug],
    env: childEnv(config, { SWITCHBOARD_TOKEN: token, ...extra }), stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => { stderr += c.toString(); });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  client.onerror = (e) => protocolErrors.push(e);
  await client.connect(transport);
  return {
    client, protocolErrors, stderr: () => stderr,
    call: (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
  };
}

describe('switchboard mcp-stdio', () => {
  const config = testConfig();
  let w: World;

  beforeAll(async () => {
    // Seed the embedded database in the data directory, then let it go for the child.
    const app = await createApp(config, { logger: silent });
    w = await makeWorld(app);
    await app.close();
  });

  it('serves the tools over stdin/stdout with nothing but protocol on stdout', async () => {
    const c = await spawnStdio(config, w, w.builder.token);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_agents', 'send_message', 'check_inbox', 'subscribe', 'search_messages']));
    const sent = await c.call('send_message', { to: ['reviewer'], body: 'from a local agent' });
    expect(sent.structuredContent).toMatchObject({ recipients: [{ to: 'reviewer', status: 'delivered' }] });
    await c.client.close();
    expect(c.protocolErrors).toEqual([]);
    expect(c.stderr()).toContain('MCP on stdio ready');
  });

  it('refuses to start without a token, saying how to get one, on stderr only', async () => {
    const failed = await run(process.execPath, [BIN, 'mcp-stdio', '--workspace', w.ws.slug], { env: childEnv(config, { SWITCHBOARD_TOKEN: '' }) })
      .then(() => null, (e: { code: number; stdout: string; stderr: string }) => e);
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toContain('Set SWITCHBOARD_TOKEN');
  });

  describe('while a server holds the embedded database', () => {
    let server: Awaited<ReturnType<typeof startServer>>;
    beforeAll(async () => {
      server = await startServer(config, { logger: silent, control: false, host: '127.0.0.1', mounts: [createMcpMount()] });
    });
    afterAll(async () => { await server?.stop(); });

    it('relays MCP to the server\'s HTTP endpoint', async () => {
      const port = new URL(server.url).port;
      const c = await spawnStdio(config, w, w.reviewer.token, { PORT: port });
      const inbox = (await c.call('check_inbox')).structuredContent as { messages: Array<{ body: string }> };
      expect(inbox.messages.map((m) => m.body)).toEqual(['from a local agent']);
      expect(c.stderr()).toContain('relaying MCP to it');
      await c.client.close();
      expect(c.protocolErrors).toEqual([]);
    });
  });
});
