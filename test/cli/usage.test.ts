import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli/index.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Every command below the root. */
async function allCommands(): Promise<Command[]> {
  const seen: Command[] = [];
  const walk = (c: Command) => {
    for (const sub of c.commands) {
      seen.push(sub);
      walk(sub);
    }
  };
  walk(await buildProgram({ out: () => {}, err: () => {} }, false, () => {}));
  return seen;
}

describe('the CLI without a database', () => {
  it('prints the package version for --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await cli(flag);
      expect(r.code).toBe(0);
      expect(r.out).toBe(pkg.version);
    }
  });

  it('reports a usage error as JSON with a code and a sentence when --json is given', async () => {
    const r = await cli('--json', 'init', '--admin', 'alice');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(JSON.parse(r.err)).toEqual({
      error: {
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/^Required option '--org <name>' not specified\. Add --help/),
      },
    });
  });

  it('reports an unknown option as JSON even when --json comes after the command', async () => {
    const r = await cli('person', 'add', 'bob', '--colour', 'red', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err).error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining("'--colour'"),
    });
  });

  it('reports a usage error as a sentence without --json', async () => {
    const r = await cli('frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^Error \(INVALID_INPUT\): Unknown command 'frobnicate'\./);
  });

  it('describes every option of every command and marks the required ones', async () => {
    const commands = await allCommands();
    expect(commands.map((c) => c.name())).toEqual(
      expect.arrayContaining(['init', 'person', 'add', 'list', 'remove', 'agent', 'serve']),
    );
    for (const command of commands) {
      const help = command.helpInformation();
      for (const option of command.options) {
        expect(option.description, `${command.name()} ${option.flags}`).not.toBe('');
        const line = help.slice(help.indexOf(option.flags));
        if (option.mandatory)
          expect(line.split(/\n {2}-/)[0]!.replace(/\s+/g, ' '), `${command.name()} ${option.flags}`).toContain(
            '(required)',
          );
      }
    }
  });
});
