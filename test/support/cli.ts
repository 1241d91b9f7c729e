// Runs CLI commands as the CLI does (the command functions the control socket calls), for tests that hold an App.
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { runCommand } from '../../src/cli/control.ts';
import { main } from '../../src/cli/index.ts';

/** `run` answers as the control socket would; `ok` also expects no error and returns the output. */
export function commandRunner(app: () => App) {
  const run = async (name: string, args: Record<string, unknown>) => runCommand(app(), name, args);
  const ok = async (name: string, args: Record<string, unknown>) => {
    const reply = await run(name, args);
    expect(reply.error, `${name}: ${reply.error?.message}`).toBeUndefined();
    return reply.output!;
  };
  return { run, ok };
}

/**
 * Runs the CLI's `main` in this process with these environment variables (an undefined one is unset), as a shell
 * would with them exported; returns the exit code and what it printed. The environment is put back afterwards.
 */
export async function cliIn(env: Record<string, string | undefined>, ...argv: string[]) {
  const saved = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  } finally {
    process.env = saved;
  }
}
