// Migration folders made for a test: the project's own migrations followed by some of the test's, or the test's
// alone (numbered after the project's, so they apply on a database the project's migrations made).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../src/infra/db/client.ts';

interface JournalEntry {
  idx: number;
  version: string;
  when: number;
  tag: string;
  breakpoints: boolean;
}
interface Journal {
  version: string;
  dialect: string;
  entries: JournalEntry[];
}

const projectJournal = (): Journal =>
  JSON.parse(readFileSync(path.join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as Journal;

/** A test migration: its file name without `.sql`, and its statements (joined with drizzle's breakpoint). */
export interface TestMigration {
  tag: string;
  statements: string[];
}

export interface MigrationFolder {
  dir: string;
  /** The journal time of each test migration, by tag (what its bookkeeping row records). */
  when: Record<string, number>;
  remove(): void;
}

/** Journal times handed out so far in this process: each folder's follow the last folder's. */
let handedOut = 0;

/**
 * A folder holding `migrations` after the project's own (`withProject`) or alone. Their journal times follow the
 * project's last one (and those of any folder made before in this process), a millisecond apart, so they are pending
 * on a database the project's migrations (and earlier folders') made.
 */
export function migrationFolder(migrations: TestMigration[], o: { withProject?: boolean } = {}): MigrationFolder {
  const dir = mkdtempSync(path.join(tmpdir(), 'sb-migrations-'));
  const project = projectJournal();
  const journal: Journal = { ...project, entries: o.withProject ? [...project.entries] : [] };
  if (o.withProject) cpSync(MIGRATIONS_DIR, dir, { recursive: true });
  else mkdirSync(path.join(dir, 'meta'));
  const after = project.entries[project.entries.length - 1].when;
  const when: Record<string, number> = {};
  for (const m of migrations) {
    when[m.tag] = after + ++handedOut;
    journal.entries.push({
      idx: journal.entries.length,
      version: '7',
      when: when[m.tag],
      tag: m.tag,
      breakpoints: true,
    });
    writeFileSync(path.join(dir, `${m.tag}.sql`), m.statements.join('--> statement-breakpoint\n'));
  }
  writeFileSync(path.join(dir, 'meta', '_journal.json'), JSON.stringify(journal, null, 2));
  return { dir, when, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
