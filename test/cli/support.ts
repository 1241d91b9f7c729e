// Runs CLI commands as the CLI does (the command functions the control socket calls), for tests that hold an App.
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import { runCommand } from '../../src/cli/control.ts';

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
