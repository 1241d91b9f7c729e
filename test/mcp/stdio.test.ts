import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client as ModernClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/infra/db/client.ts';
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { createMcpMount } from '../../src/mcp/http.ts';
import { INBOX_URI } from '../../src/mcp/resources.ts';
import { startServer } from '../../src/server.ts';
import { seedDataDir } from '../support/db.ts';
import { freePort } from '../support/free-port.ts';
import { makeWorld, silent, testConfig, type World } from '../support/world.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/switchboard.mjs');
const run = promisify(execFile);
/** A working directory that is not the checkout, as an MCP client such as Claude Desktop starts us in. */
const elsewhere = () => mkdtempSync(path.join(tmpdir(), 'sb-cwd-'));

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
    command: process.execPath,
    args: [BIN, 'mcp-stdio', '--workspace', w.ws.slug],
    env: childEnv(config, { SWITCHBOARD_TOKEN: token, ...extra }),
    stderr: 'pipe',
    cwd: elsewhere(),
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const protocolErrors: Error[] = [];
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  client.onerror = (e) => protocolErrors.push(e);
  await client.connect(transport);
  return {
    client,
    protocolErrors,
    stderr: () => stderr,
    call: (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
  };
}

// Each test starts a process that loads the CLI through tsx and opens the embedded database: seconds of CPU, and
// on a loaded 2-core machine more than the default 30 s of waiting.
describe('switchboard mcp-stdio', { timeout: 120_000 }, () => {
  const config = testConfig();
  let w: World;

  beforeAll(async () => {
    // Seed the embedded database in the data directory, then let it go for the child.
    await seedDataDir(config.dataDir);
    const app = await createApp(config, { logger: silent });
    w = await makeWorld(app);
    await app.close();
  });

  it('refuses to start without a token, saying how to get one, on stderr only', async () => {
    const failed = await run(process.execPath, [BIN, 'mcp-stdio', '--workspace', w.ws.slug], {
      env: childEnv(config, { SWITCHBOARD_TOKEN: '' }),
    }).then(
      () => null,
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toContain('Set SWITCHBOARD_TOKEN');
  });

  // One child for both (each child opening the embedded database costs seconds of CPU on a loaded machine).
  it("starts as Claude Desktop launches it (the README's config, node with the bin's absolute path, from another directory) and serves the tools over stdin/stdout with nothing but protocol on stdout", async () => {
    const file = JSON.parse(
      readFileSync(path.join(ROOT, 'examples/mcp-client-config/claude_desktop_config.json'), 'utf8'),
    ) as {
      mcpServers: { switchboard: { command: string; args: string[]; env: Record<string, string> } };
    };
    const entry = file.mcpServers.switchboard;
    const fill = (v: string) =>
      v
        .replace('/ABSOLUTE/PATH/TO/switchboard/.switchboard', config.dataDir)
        .replace('/ABSOLUTE/PATH/TO/switchboard', ROOT)
        .replace('sb_paste-the-agent-token-here', w.builder.token)
        .replace(/^demo$/, w.ws.slug);
    expect(entry.command).toBe('node');
    // Only the configured env plus the SDK's default variables (PATH, HOME…), as a desktop client passes them,
    // and LOG_LEVEL info (a CLI process logs warnings only), so that there are log lines to keep off stdout.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: entry.args.map(fill),
      cwd: elsewhere(),
      stderr: 'pipe',
      env: {
        ...Object.fromEntries(Object.entries(entry.env).map(([k, v]) => [k, fill(v)])),
        SWITCHBOARD_SECRET: config.secret!,
        LOG_LEVEL: 'info',
      },
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const protocolErrors: Error[] = [];
    const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
    client.onerror = (e) => protocolErrors.push(e);
    await client.connect(transport);
    const call = (name: string, args: Record<string, unknown> = {}) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

    expect((await call('list_agents')).structuredContent).toMatchObject({ you: w.builder.name });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['list_agents', 'send_message', 'check_inbox', 'subscribe', 'search_messages']),
    );
    const sent = await call('send_message', { to: ['reviewer'], body: 'from a local agent' });
    expect(sent.structuredContent).toMatchObject({ recipients: [{ to: 'reviewer', status: 'delivered' }] });
    await client.close();
    expect(protocolErrors).toEqual([]);
    expect(stderr).toContain('MCP on stdio ready');
  });

  it('refuses to start without DATA_DIR or DATABASE_URL, saying what to set, instead of creating a database where it was started', async () => {
    const cwd = elsewhere();
    const env = childEnv(config, { SWITCHBOARD_TOKEN: w.builder.token });
    delete env.DATA_DIR;
    const empty = elsewhere();
    // Both at once: each is a process start, and they share nothing.
    const [failed, wrong] = await Promise.all([
      run(process.execPath, [BIN, 'mcp-stdio', '--workspace', w.ws.slug], { env, cwd }).then(
        () => null,
        (e: { code: number; stdout: string; stderr: string }) => e,
      ),
      run(process.execPath, [BIN, 'mcp-stdio', '--workspace', w.ws.slug], {
        env: { ...env, DATA_DIR: empty },
        cwd,
      }).then(
        () => null,
        (e: { code: number; stderr: string }) => e,
      ),
    ]);
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe('');
    expect(failed?.stderr).toContain(
      'Set DATA_DIR to the absolute path of the data directory `switchboard serve` uses',
    );
    expect(failed?.stderr).toContain(`did not create an empty database in ${realpathSync(cwd)}`);
    expect(readdirSync(cwd)).toEqual([]);

    expect(wrong?.code).toBe(2);
    expect(wrong?.stderr).toContain(`DATA_DIR is ${empty}, which holds no Switchboard database`);
    expect(readdirSync(empty)).toEqual([]);
  });

  // The servers below share one opening of the embedded database, which this process holds (and locks) from
  // before the first starts to after the second stops: opening it costs about half a second of CPU each time.
  describe('relaying to a server on the same data directory', () => {
    let database: Database;
    beforeAll(async () => {
      database = await openDatabase({ dataDir: path.join(config.dataDir, 'pglite'), logger: silent });
    });
    afterAll(async () => {
      await database?.close();
    });

    describe('while a server holds the embedded database', () => {
      let server: Awaited<ReturnType<typeof startServer>>;
      beforeAll(async () => {
        server = await startServer(config, { database, logger: silent, host: '127.0.0.1', mounts: [createMcpMount()] });
      });
      afterAll(async () => {
        await server?.stop();
      });

      it("relays MCP to the server's HTTP endpoint, found through its control socket even when PORT says otherwise", async () => {
        const c = await spawnStdio(config, w, w.reviewer.token, { PORT: String(await freePort()) });
        const inbox = (await c.call('check_inbox')).structuredContent as { messages: Array<{ body: string }> };
        expect(inbox.messages.map((m) => m.body)).toEqual(['from a local agent']);
        expect(c.stderr()).toContain(`relaying MCP to it at ${server.url}/mcp/${w.ws.slug} (as its control socket`);
        await c.client.close();
        expect(c.protocolErrors).toEqual([]);
      });

      it('relays a 2026-07-28 client too: each request on its own, and the inbox push of its listen stream', async () => {
        // A subclass probes for the protocol family on the child it starts (the SDK's own class would start another).
        class InPlace extends ModernStdio {}
        const transport = new InPlace({
          command: process.execPath,
          args: [BIN, 'mcp-stdio', '--workspace', w.ws.slug],
          env: childEnv(config, { SWITCHBOARD_TOKEN: w.reviewer.token }),
          stderr: 'pipe',
          cwd: elsewhere(),
        });
        const client = new ModernClient(
          { name: 'stdio-2026', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        await client.connect(transport);
        expect(client.getProtocolEra()).toBe('modern');
        const updated = new Promise<string>((resolve) =>
          client.setNotificationHandler('notifications/resources/updated', (n) => resolve(n.params.uri)),
        );
        await client.listen({ resourceSubscriptions: [INBOX_URI] });
        // A waiting subscribe holds nothing else up: each request goes out on its own.
        const waiting = client.callTool({ name: 'subscribe', arguments: { timeout_seconds: 30 } });
        expect((await client.callTool({ name: 'list_agents', arguments: {} })).structuredContent).toMatchObject({
          you: w.reviewer.name,
        });
        await server.app.messaging.send({
          workspace: w.ws,
          sender: w.builder.agent,
          to: ['reviewer'],
          body: 'relayed push',
          surface: 'mcp',
        });
        expect(await updated).toBe(INBOX_URI);
        const got = (await waiting).structuredContent as { messages: Array<{ body: string }> };
        expect(got.messages.map((m) => m.body)).toEqual(['relayed push']);
        await client.close();
      });
    });

    describe('while a server without a control socket holds the embedded database', () => {
      let server: Awaited<ReturnType<typeof startServer>>;
      beforeAll(async () => {
        server = await startServer(config, {
          database,
          logger: silent,
          control: false,
          host: '127.0.0.1',
          mounts: [createMcpMount()],
        });
      });
      afterAll(async () => {
        await server?.stop();
      });

      it('relays to PORT, and names the URL it tried when nothing answers there', async () => {
        const good = await spawnStdio(config, w, w.reviewer.token, { PORT: new URL(server.url).port });
        expect((await good.call('list_agents')).isError).toBeFalsy();
        await good.client.close();

        const port = await freePort();
        const url = `http://127.0.0.1:${port}/mcp/${w.ws.slug}`;
        const failed = await spawnStdio(config, w, w.reviewer.token, { PORT: String(port) }).then(
          () => null,
          (e: Error) => e,
        );
        expect(failed?.message).toContain(`could not reach Switchboard at ${url}`);
        expect(failed?.message).toContain('Set PORT (or DATA_DIR) to match the server');
      });
    });
  });
});
