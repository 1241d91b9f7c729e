import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Help, type Option } from 'commander';
import type { Config } from '../config.ts';
import { sendToServer, type CommandReply } from './control-client.ts';
// Everything else (zod, pino, the database) is imported when a command runs
// here rather than in a running server: a command the server answers stays quick.

/** Exit codes: 0 ok, 1 refused or failed, 2 wrong usage or configuration. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** The package version, read once from package.json next to src/. */
const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Commander's option help, with the options a command cannot run without marked as such. */
function optionDescription(this: Help, option: Option): string {
  const text = Help.prototype.optionDescription.call(this, option);
  return option.mandatory ? `${text} (required)` : text;
}

/** "error: unknown option '--x'" → "Unknown option '--x'." plus where to find the options. */
function usageSentence(commanderMessage: string): string {
  const bare = commanderMessage
    .replace(/^error:\s*/i, '')
    .trim()
    .replace(/\.$/, '');
  return `${bare.charAt(0).toUpperCase()}${bare.slice(1)}. Add --help after the command to see its arguments and options.`;
}

/**
 * Runs a data command here, when no server answered on DATA_DIR's control
 * socket, opening the database itself; that takes seconds, so `note` tells
 * the person why they wait.
 */
async function executeHere(
  config: Config,
  name: string,
  args: Record<string, unknown>,
  note: (line: string) => void,
): Promise<CommandReply> {
  note(
    `Note: no Switchboard server is running with DATA_DIR ${config.dataDir}, so this command opens the ${config.databaseUrl ? 'database' : 'embedded database'} itself, which takes a few seconds; with \`switchboard serve\` running it answers at once.`,
  );
  // Loaded only when the command runs here: a command sent to the server needs none of it.
  const [{ createApp }, { runCommand }, { quietLogger }, { DatabaseLockedError }] = await Promise.all([
    import('../app.ts'),
    import('./control.ts'),
    import('../infra/logger.ts'),
    import('../infra/db/lock.ts'),
  ]);
  let app;
  try {
    app = await createApp(config, { logger: quietLogger(config) });
  } catch (e) {
    if (!(e instanceof DatabaseLockedError)) throw e;
    // A server is starting on this data directory: wait for its control socket.
    for (let waited = 0; waited < 30_000; waited += 250) {
      await new Promise((r) => setTimeout(r, 250));
      const remote = await sendToServer(config, name, args);
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

/** An error on stderr: `{"error":{code,message}}` with --json, a sentence otherwise. */
function printError(io: Io, json: boolean, error: { code: string; message: string }) {
  io.err(json ? JSON.stringify({ error }) : `Error (${error.code}): ${error.message}`);
}

/** The whole command tree; `report` records what the command ended with (exit code). */
export async function buildProgram(io: Io, json: boolean, report: (exit: number) => void): Promise<Command> {
  const fail = (error: { code: string; message: string }, exit: number) => {
    printError(io, json, error);
    report(exit);
  };
  const program = new Command('switchboard')
    .description('Switchboard: AI agents next to people in Slack, Teams and a web chat, connected over MCP.')
    .version(VERSION, '-V, --version', 'print the Switchboard version and exit')
    .option('--json', 'print machine-readable JSON (errors too, on stderr)')
    .helpOption('-h, --help', 'describe a command, its arguments and options')
    .exitOverride()
    .configureHelp({ sortSubcommands: true, optionDescription })
    .configureOutput({
      writeOut: (s) => io.out(s.trimEnd()),
      writeErr: (s) => io.err(s.trimEnd()),
      // Usage errors are printed once, after parsing, in the chosen format (see main).
      outputError: () => {},
    });

  const data =
    (name: string, build: (...a: any[]) => Record<string, unknown>) =>
    async (...a: unknown[]) => {
      const args = build(...a);
      // The server checked its own configuration; DATA_DIR (default as in config.ts) is all it takes to find it,
      // and DATABASE_URL (empty is unset, as in config.ts) which database this command is for.
      let reply = await sendToServer(
        {
          dataDir: path.resolve(process.env.DATA_DIR || './.switchboard'),
          databaseUrl: process.env.DATABASE_URL || undefined,
        },
        name,
        args,
      );
      if (!reply) {
        const { ConfigError, loadConfig } = await import('../config.ts');
        let config: Config;
        try {
          config = loadConfig();
        } catch (e) {
          if (e instanceof ConfigError) return fail({ code: 'INVALID_INPUT', message: e.message }, EXIT.usage);
          throw e;
        }
        reply = await executeHere(config, name, args, json ? () => {} : io.err);
      }
      if (reply.ok && reply.output) {
        io.out(json ? JSON.stringify(reply.output.data, null, 2) : reply.output.text);
      } else {
        const error = reply.error ?? { code: 'INTERNAL', message: 'The command failed.' };
        fail(error, error.code === 'INVALID_INPUT' ? EXIT.usage : EXIT.failed);
      }
    };

  program
    .command('init')
    .description('create the first organization and its admin; prints a one-time sign-in URL')
    .requiredOption('--org <name>', "the organization's name (its slug is derived from it)")
    .requiredOption('--admin <handle>', 'handle of the first admin, created with the organization')
    .option('--email <email>', "the admin's e-mail address")
    .option('--name <display name>', "the admin's display name (default: the handle)")
    .action(data('init', (o) => o));

  const person = program.command('person').description('people');
  person
    .command('add <handle>')
    .description('add a person (with their own Free organization and person agent)')
    .option('--org <org>', 'also make them a member of this organization')
    .option(
      '--role <role>',
      'their role in --org: admin or member (a new member: member; an existing one keeps theirs)',
    )
    .option('--email <email>', 'their e-mail address')
    .option('--name <display name>', 'their display name (default: the handle)')
    .option('--invite', 'print a one-time sign-in link')
    .action(data('person add', (handle, o) => ({ handle, ...o })));

  person
    .command('list')
    .description('list people: the members of --org with role and seat, or everyone')
    .option('--org <org>', "only this organization's members")
    .action(data('person list', (o) => o));
  person
    .command('remove <handle>')
    .description('take a person out of an organization (its last admin cannot be removed)')
    .requiredOption('--org <org>', 'the organization to remove them from')
    .action(data('person remove', (handle, o) => ({ handle, ...o })));

  const workspace = program.command('workspace').description('workspaces');
  workspace
    .command('list')
    .description('list workspaces')
    .option('--org <org>', "only this organization's")
    .action(data('workspace list', (o) => o));
  workspace
    .command('remove <workspace>')
    .description('delete a workspace with its conversations, messages and documents, for good')
    .option('--yes', 'confirm; without it nothing is deleted')
    .action(data('workspace remove', (ws, o) => ({ workspace: ws, ...o })));
  workspace
    .command('add <name>')
    .description('create a workspace')
    .requiredOption('--org <org>', 'the organization it belongs to')
    .option('--simplified', 'one hidden collection instead of structured collections')
    .option('--restricted', 'open only to admins and people added directly')
    .action(data('workspace add', (name, o) => ({ name, ...o })));
  workspace
    .command('linking <workspace> <mode>')
    .description(
      'required: agents hear only people who linked their chat account; optional: unlinked people talk to agents as guests',
    )
    .action(data('workspace linking', (ws, mode) => ({ workspace: ws, mode })));

  program
    .command('member')
    .description('workspace members')
    .command('add <workspace> <handle>')
    .description('add a person to a workspace')
    .requiredOption('--role <role>', 'owner, editor or viewer')
    .action(data('member add', (workspace, handle, o) => ({ workspace, handle, ...o })));

  const seat = program.command('seat').description('seats (needed to write documents)');
  for (const verb of ['grant', 'revoke'] as const) {
    seat
      .command(`${verb} <handle>`)
      .description(verb === 'grant' ? 'give a person a seat' : "take a person's seat back")
      .requiredOption('--org <org>', 'the organization the seat belongs to')
      .action(data(`seat ${verb}`, (handle, o) => ({ handle, ...o })));
  }

  program
    .command('plan')
    .description('plans')
    .command('set <org> <plan>')
    .description("set an organization's plan (free or team)")
    .option('--messages <n>', 'licensed messages a month (team)')
    .action(data('plan set', (org, plan, o) => ({ org, plan, ...o })));

  const agent = program.command('agent').description('agents');
  agent
    .command('add <name>')
    .description('create an agent; prints its token once')
    .requiredOption('--owner <handle>', 'the person the agent belongs to')
    .option('--display-name <name>', "the name people see (default: the agent's name)")
    .option('--avatar-url <url>', 'an http(s) image URL shown next to its messages')
    .option('--role <line>', 'one line saying what it does')
    .action(data('agent add', (name, o) => ({ name, ...o })));
  agent
    .command('join <agent> <workspace>')
    .description('put OWNER/NAME in a workspace with permissions')
    .option('--no-send', 'may not send')
    .option('--no-receive', 'may not receive')
    .option('--can-message <names>', 'comma-separated recipients it may message (default: anyone)')
    .option('--takes-from <names>', 'comma-separated senders it accepts (default: anyone)')
    .option('--monitor', 'may search and follow every message in the workspace')
    .action(data('agent join', (agentName, workspace, o) => ({ agent: agentName, workspace, ...o })));
  agent
    .command('list')
    .description('list agents, with whether each still holds a token')
    .option('--owner <handle>', "only this person's agents")
    .action(data('agent list', (o) => o));
  agent
    .command('remove <agent>')
    .description('retire OWNER/NAME: its token stops working and it leaves every workspace; its messages stay')
    .action(data('agent remove', (agentName) => ({ agent: agentName })));
  agent
    .command('rotate-token <agent>')
    .description("replace OWNER/NAME's token; the old one stops working")
    .action(data('agent rotate-token', (agentName) => ({ agent: agentName })));

  program
    .command('slack')
    .description('Slack')
    .command('connect <workspace>')
    .description('connect a Slack team to a workspace (single-workspace install, or after an OAuth install)')
    .requiredOption('--team-id <id>', 'the Slack team id (T…)')
    .option('--bot-token <token>', "the app's bot token, xoxb-… (default: the OAuth install's, else SLACK_BOT_TOKEN)")
    .action(data('slack connect', (workspace, o) => ({ workspace, ...o })));

  program
    .command('teams')
    .description('Microsoft Teams')
    .command('connect <workspace>')
    .description('connect a Microsoft Teams organization (Entra ID tenant) to a workspace')
    .requiredOption('--tenant-id <id>', 'the Entra ID tenant id (a GUID)')
    .action(data('teams connect', (workspace, o) => ({ workspace, ...o })));

  const email = program.command('email').description('email to agents at EMAIL_DOMAIN');
  email
    .command('connect <workspace>')
    .description('let a workspace take mail: WORKSPACE+AGENT@EMAIL_DOMAIN (and AGENT@EMAIL_DOMAIN with --default)')
    .option('--default', "also take the domain's plain addresses, AGENT@EMAIL_DOMAIN")
    .action(data('email connect', (workspace, o) => ({ workspace, ...o })));
  email
    .command('disconnect <workspace>')
    .description('stop a workspace taking mail; its email conversations stay')
    .action(data('email disconnect', (workspace) => ({ workspace })));

  const bridge = program
    .command('bridge')
    .description('bridged channels: a web chat channel mirrored with a Slack or Teams channel');
  bridge
    .command('add <workspace>')
    .description('bridge a web chat channel with a Slack channel and/or a Teams channel (workspace owners)')
    .requiredOption('--channel <name>', 'the web chat channel, e.g. general')
    .option('--slack <channel id>', 'the Slack channel id (C…); the app must be in the channel')
    .option(
      '--teams <channel id>',
      'the Teams channel id (19:…@thread.tacv2) or its "Get link to channel" link; the bot must be in the team',
    )
    .option(
      '--allow-private',
      'allow bridging a restricted web channel (its messages reach everyone in the outside channel)',
    )
    .action(data('bridge add', (workspace, o) => ({ workspace, ...o })));
  bridge
    .command('list <workspace>')
    .description("list the workspace's bridged channels")
    .action(data('bridge list', (workspace) => ({ workspace })));
  bridge
    .command('remove <workspace> <bridge>')
    .description('stop mirroring: give the bridge id or the outside channel id from bridge list')
    .action(data('bridge remove', (workspace, b) => ({ workspace, bridge: b })));
  const channel = program.command('channel').description('channels: which agents listen to them');
  channel
    .command('listen <workspace> <channel>')
    .description(
      'let an agent hear every message of a channel (general, slack:C…, teams:19:…@thread.tacv2); it answers only when mentioned',
    )
    .requiredOption('--agent <agent>', 'the agent, OWNER/NAME')
    .option('--stop', 'stop it listening instead')
    .action(data('channel listen', (ws, ch, o) => ({ workspace: ws, channel: ch, ...o })));
  channel
    .command('unlisten <workspace> <channel>')
    .description('stop an agent listening to a channel')
    .requiredOption('--agent <agent>', 'the agent, OWNER/NAME')
    .action(data('channel unlisten', (ws, ch, o) => ({ workspace: ws, channel: ch, ...o })));
  channel
    .command('listeners <workspace> [channel]')
    .description('list the agents listening to a channel, or to every channel of the workspace')
    .action(data('channel listeners', (ws, ch) => ({ workspace: ws, ...(ch ? { channel: ch } : {}) })));

  const jobs = program
    .command('jobs')
    .description('background jobs: stored Slack/Teams requests, posts to chat apps, reminders');
  jobs
    .command('list')
    .description('list jobs not done yet and jobs that failed for good')
    .option('--status <status>', 'only jobs in this state: pending, queued, done or failed')
    .option('--topic <topic>', 'only jobs of this topic, e.g. inbound.slack or slack.post')
    .action(data('jobs list', (o) => ({ ...o })));
  jobs
    .command('retry <id>')
    .description('run a failed job again, with its attempts reset')
    .action(data('jobs retry', (id) => ({ id })));

  const { registerServiceCommands } = await import('./service-commands.ts');
  registerServiceCommands(program, io, report);
  return program;
}

export async function main(
  argv: string[],
  io: Io = { out: (s) => process.stdout.write(s + '\n'), err: (s) => process.stderr.write(s + '\n') },
): Promise<number> {
  let code: number = EXIT.ok;
  // Known before parsing, so that even a usage error commander finds is reported as JSON.
  const json = argv.includes('--json');
  const report = (exit: number) => {
    code = exit;
  };
  const program = await buildProgram(io, json, report);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) {
      printError(io, json, { code: 'INTERNAL', message: `The command failed: ${(e as Error).message}` });
      return EXIT.failed;
    }
    // Help or the version was printed (help alone for a bare `switchboard person`, with exit 1).
    if (e.exitCode === 0 || e.code === 'commander.help') return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    printError(io, json, { code: 'INVALID_INPUT', message: usageSentence(e.message) });
    return EXIT.usage;
  }
  return code;
}
