// The rules of docs/contributing/migrations.md that can be read off the SQL: a migration marked to run outside a
// transaction is written so that it can run again from its start; one inside a transaction uses nothing that
// cannot run there; and from the first migration that rolling upgrades rely on, no migration locks out the previous
// release or removes what it uses without saying so (and the operators' page listing it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../../src/infra/db/client.ts';
import { BATCHED, NO_TRANSACTION, readMigrations, type Migration } from '../../../src/infra/db/migrator.ts';

/** The first migration written in expand/contract form: rolling upgrades work from the release before it. */
const FIRST_ROLLING = 20;
/** The line a migration that removes or tightens what the previous release used starts with. */
const CONTRACT = '-- switchboard:contract';

const UPGRADES = readFileSync(path.resolve(import.meta.dirname, '../../../docs/operating/upgrades.md'), 'utf8');

/** The SQL without its comments, on one line per statement, lower case. */
const code = (statement: string) =>
  statement
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();

const lines = (m: Migration) =>
  m.statements
    .join('\n')
    .split('\n')
    .map((l) => l.trim());
const number = (m: Migration) => Number(m.tag.slice(0, 4));
const name = /("[^"]+"|[\w.]+)/.source;
/** The tables a migration creates: indexes and constraints on them lock nobody out. */
const created = (m: Migration) =>
  new Set(
    [
      ...m.statements
        .map(code)
        .join(';')
        .matchAll(new RegExp(`create table (?:if not exists )?${name}`, 'g')),
    ].map((x) => x[1]),
  );

/** What each statement does against the rules, as sentences (none when it keeps them). */
function broken(m: Migration): string[] {
  const said: string[] = [];
  const say = (why: string) => said.push(`${m.tag}: ${why}`);
  const all = lines(m);
  if (all.includes(NO_TRANSACTION) && !m.statements[0].split('\n').some((l) => l.trim() === NO_TRANSACTION))
    say(`${NO_TRANSACTION} must be in the first statement, where a reader looks for it`);
  const fresh = created(m);
  for (const statement of m.statements) {
    const sql = code(statement);
    const batched = statement.split('\n').some((l) => l.trim() === BATCHED);
    if (m.outside) {
      for (const x of sql.matchAll(/create (?:unique )?index (?!concurrently if not exists )/g))
        say(`\`${x[0]}…\` outside a transaction must be CREATE INDEX CONCURRENTLY IF NOT EXISTS`);
      for (const x of sql.matchAll(/drop index (?!concurrently if exists )/g))
        say(`\`${x[0]}…\` outside a transaction must be DROP INDEX CONCURRENTLY IF EXISTS`);
      for (const x of sql.matchAll(/add column (?!if not exists )/g))
        say(`\`${x[0]}…\` outside a transaction must be ADD COLUMN IF NOT EXISTS, so it can run again`);
      if (/\b(begin|commit|rollback)\b/.test(sql) && !/\bdo \$/.test(sql))
        say('a migration outside a transaction opens none of its own');
      if (batched && !/\blimit \d+/.test(sql)) say(`a ${BATCHED} statement must change a LIMITed batch per run`);
    } else {
      if (/\bconcurrently\b/.test(sql))
        say(`CONCURRENTLY cannot run in a transaction: mark the migration ${NO_TRANSACTION}`);
      if (batched)
        say(`${BATCHED} commits each batch only outside a transaction: mark the migration ${NO_TRANSACTION}`);
    }
    if (number(m) < FIRST_ROLLING) continue;
    const index = sql.match(
      new RegExp(`create (?:unique )?index (?:concurrently )?(?:if not exists )?${name} on (?:only )?${name}`),
    );
    if (index && !m.outside && !fresh.has(index[2]))
      say(`an index on ${index[2]}, a table the previous release uses, is built CONCURRENTLY, outside a transaction`);
    const constraint = sql.match(
      new RegExp(`alter table (?:only )?${name} add constraint ${name} (foreign key|check)`),
    );
    if (constraint && !fresh.has(constraint[1]) && !/\bnot valid\b/.test(sql))
      say(`a ${constraint[3]} on ${constraint[1]} is added NOT VALID, then validated by a later statement`);
    const contract = sql.match(
      /\b(drop column|drop table|rename (?:column )?[^ ]+ to|rename to|set not null|alter column [^ ]+ (?:set data )?type)\b/,
    );
    if (contract && !all.includes(CONTRACT))
      say(`\`${contract[1]}\` removes or tightens what the previous release may use: mark the migration ${CONTRACT}`);
  }
  if (number(m) >= FIRST_ROLLING && all.includes(CONTRACT) && !UPGRADES.includes(`| ${m.tag.slice(0, 4)} |`))
    say('a contract migration is listed in docs/operating/upgrades.md, which says which release it needs');
  return said;
}

describe('the migrations keep the rules of docs/contributing/migrations.md', () => {
  it('each migration in migrations/', () => {
    expect(readMigrations(MIGRATIONS_DIR).flatMap(broken)).toEqual([]);
  });

  it('which these rules would refuse', () => {
    const m = (tag: string, statements: string[]): Migration => ({
      tag,
      statements,
      when: 0,
      hash: '',
      outside: statements.some((s) => s.includes(NO_TRANSACTION)),
    });
    expect(
      [
        m('0020_outside', [
          `${NO_TRANSACTION}\nCREATE INDEX "a_idx" ON "a" ("x")`,
          'ALTER TABLE "a" ADD COLUMN "y" integer',
          `${BATCHED}\nUPDATE "a" SET "y" = 1 WHERE "y" IS NULL`,
        ]),
        m('0021_inside', ['CREATE INDEX CONCURRENTLY "b_idx" ON "b" ("x")', 'CREATE INDEX "c_idx" ON "c" ("x")']),
        m('0022_fk', ['ALTER TABLE "d" ADD CONSTRAINT "d_e_fk" FOREIGN KEY ("e") REFERENCES "e"("id")']),
        m('0023_drop', [`${CONTRACT}\nALTER TABLE "f" DROP COLUMN "g"`, 'ALTER TABLE "h" RENAME COLUMN "i" TO "j"']),
        m('0024_new', [
          'CREATE TABLE "k" ("id" uuid PRIMARY KEY, "l" uuid)',
          'CREATE INDEX "k_l_idx" ON "k" ("l")',
          'ALTER TABLE "k" ADD CONSTRAINT "k_l_fk" FOREIGN KEY ("l") REFERENCES "a"("id")',
        ]),
      ].flatMap(broken),
    ).toEqual([
      '0020_outside: `create index …` outside a transaction must be CREATE INDEX CONCURRENTLY IF NOT EXISTS',
      '0020_outside: `add column …` outside a transaction must be ADD COLUMN IF NOT EXISTS, so it can run again',
      `0020_outside: a ${BATCHED} statement must change a LIMITed batch per run`,
      `0021_inside: CONCURRENTLY cannot run in a transaction: mark the migration ${NO_TRANSACTION}`,
      '0021_inside: an index on "b", a table the previous release uses, is built CONCURRENTLY, outside a transaction',
      '0021_inside: an index on "c", a table the previous release uses, is built CONCURRENTLY, outside a transaction',
      '0022_fk: a foreign key on "d" is added NOT VALID, then validated by a later statement',
      '0023_drop: a contract migration is listed in docs/operating/upgrades.md, which says which release it needs',
    ]);
  });
});
