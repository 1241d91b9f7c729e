import { Command, CommanderError } from 'commander';
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from '../config.ts';
import { DatabaseLockedError } from '../adapters/db/lock.ts';
import { sendToServer, type CommandReply } from './control.ts';

/** Exit codes: 0 ok, 1 refused or failed, 2 wrong usage or configuration. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

interface Io { out: (s: string) => void; err: (s: string) => void }

/** Runs a data command here, or in the running server when it holds the embedded database. */
async function execute(config: Config, name: string, args: Record<string, unknown>): Promise<CommandReply> {
  if (!config.databaseUrl) {
    const remote = await sendToServer(config.dataDir, name, args);
    if (remote) return remote;
  }
  // Loaded only when the command runs here: a command sent to the server needs none of it.
  const [{ createApp }, { runCommand }] = await Promise.all([import('../app.ts'), import('./control.ts')]);
  let app;
  try {
    app = await createApp(config, { logger: quietLogger(config) });
  } catch (e) {
    if (!(e instanceof DatabaseLockedError)) throw e;
    // A server is starting on this data directory: wait for its control socket.
    for (let waited = 0; waited < 30_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      const remote = await sendToServer(config.dataDir, name, args);
      if (remote) return remote;
    }
    throw e;
  }
  try {
    return await runCommand(app, name, args);
  } finally {
    await app.close();
  }
}

/** The CLI prints results itself; its logs go to stderr, warnings only unless LOG_LEVEL says otherwise. */
export const quietLogger = (config: Config) => pino({ level: process.env.LOG_LEVEL ? config.logLevel : 'warn' }, pino.destination(2));

export async function main(argv: string[], io: Io = { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n') }): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command('switchboard')
    .description('Switchboard: AI agents next to people in Slack, Teams and a web chat, connected over MCP.')
    .option('--json', 'print machine-readable JSON')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  const data = (name: string, build: (...a: any[]) => Record<string, unknown>) => async (...a: unknown[]) => {
    const json = Boolean(program.opts().json);
    let config: Config;
    try { config = loadConfig(); } catch (e) {
      if (e instanceof ConfigError) { io.err(e.message); code = EXIT.usage; return; }
      throw e;
    }
    const reply = await execute(config, name, build(...a));
    if (reply.ok && reply.output) {
      io.out(json ? JSON.stringify(reply.output.data, null, 2) : reply.output.text);
    } else {
      const error = reply.error ?? { code: 'INTERNAL', message: 'The command failed.' };
      io.err(json ? JSON.stringify({ error }) : `Error (${error.code}): ${error.message}`);
      code = error.code === 'INVALID_INPUT' ? EXIT.usage : EXIT.failed;
    }
  };

  program.command('init').description('create the first organization and its admin; prints a one-time sign-in URL')
    .requiredOption('--org <name>', 'organization name').requiredOption('--admin <handle>', 'admin handle')
    .option('--email <email>').option('--name <display name>')
    .action(data('init', (o) => o));

  const person = program.command('person').description('people');
  person.command('add <handle>').description('add a person (with their own Free organization and person agent)')
    .option('--org <org>', 'also make them a member of this organization').option('--role <role>', 'admin or member', 'member')
    .option('--email <email>').option('--name <display name>').option('--invite', 'print a one-time sign-in link')
    .action(data('person add', (handle, o) => ({ handle, ...o })));

  const workspace = program.command('workspace').description('workspaces');
  workspace.command('add <name>').description('create a workspace')
    .requiredOption('--org <org>').option('--simplified', 'one hidden collection instead of structured collections')
    .option('--restricted', 'open only to admins and people added directly')
    .action(data('workspace add', (name, o) => ({ name, ...o })));
  workspace.command('linking <workspace> <mode>')
    .description('required: agents hear only people who linked their chat account; optional: unlinked people talk to agents as guests')
    .action(data('workspace linking', (ws, mode) => ({ workspace: ws, mode })));

  program.command('member').description('workspace members').command('add <workspace> <handle>').description('add a person to a workspace')
    .requiredOption('--role <role>', 'owner, editor or viewer')
    .action(data('member add', (workspace, handle, o) => ({ workspace, handle, ...o })));

  const seat = program.command('seat').description('seats (needed to write documents)');
  for (const verb of ['grant', 'revoke'] as const) {
    seat.command(`${verb} <handle>`).requiredOption('--org <org>').action(data(`seat ${verb}`, (handle, o) => ({ handle, ...o })));
  }

  program.command('plan').description('plans').command('set <org> <plan>').description('set an organization\'s plan (free or team)')
    .option('--messages <n>', 'licensed messages a month (team)')
    .action(data('plan set', (org, plan, o) => ({ org, plan, ...o })));

  const agent = program.command('agent').description('agents');
  agent.command('add <name>').description('create an agent; prints its token once').requiredOption('--owner <handle>')
    .option('--display-name <name>').option('--avatar-url <url>').option('--role <line>', 'one-line role')
    .action(data('agent add', (name, o) => ({ name, ...o })));
  agent.command('join <agent> <workspace>').description('put OWNER/NAME in a workspace with permissions')
    .option('--no-send', 'may not send').option('--no-receive', 'may not receive')
    .option('--can-message <names>', 'comma-separated recipients it may message (default: anyone)')
    .option('--takes-from <names>', 'comma-separated senders it accepts (default: anyone)')
    .option('--monitor', 'may search and follow every message in the workspace')
    .action(data('agent join', (agentName, workspace, o) => ({ agent: agentName, workspace, ...o })));
  agent.command('rotate-token <agent>').description('replace OWNER/NAME\'s token; the old one stops working')
    .action(data('agent rotate-token', (agentName) => ({ agent: agentName })));

  program.command('slack').description('Slack').command('connect <workspace>')
    .description('connect a Slack team to a workspace (single-workspace install, or after an OAuth install)')
    .requiredOption('--team-id <id>', 'the Slack team id (T…)')
    .option('--bot-token <token>', 'the app\'s bot token, xoxb-… (default: the OAuth install\'s, else SLACK_BOT_TOKEN)')
    .action(data('slack connect', (workspace, o) => ({ workspace, ...o })));

  program.command('teams').description('Microsoft Teams').command('connect <workspace>')
    .description('connect a Microsoft Teams organization (Entra ID tenant) to a workspace')
    .requiredOption('--tenant-id <id>', 'the Entra ID tenant id (a GUID)')
    .action(data('teams connect', (workspace, o) => ({ workspace, ...o })));

  const { registerServiceCommands } = await import('./service-commands.ts');
  registerServiceCommands(program, io, (c) => { code = c; });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    io.err(`Error: ${(e as Error).message}`);
    return EXIT.failed;
  }
  return code;
}
