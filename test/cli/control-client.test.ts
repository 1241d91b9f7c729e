import { describe, expect, it } from 'vitest';
import { databaseIdentity, EMBEDDED } from '../../src/cli/control-client.ts';

describe('databaseIdentity', () => {
  it('names the database without its password, two spellings of one database alike', () => {
    expect(databaseIdentity(undefined)).toBe(EMBEDDED);
    expect(databaseIdentity('postgres://sb:secret@127.0.0.1/sb')).toBe('postgres://sb@localhost:5432/sb');
    expect(databaseIdentity('postgres://sb:other@localhost:5432/sb')).toBe('postgres://sb@localhost:5432/sb');
  });

  it('never shows a password the URL parser cannot read (one with a slash), nor a query that may hold one', () => {
    expect(() => new URL('postgres://u:p/ss@host/db')).toThrow();
    expect(databaseIdentity('postgres://u:p/ss@host/db')).toBe('postgres://u@host/db');
    expect(databaseIdentity('postgres://u:p/s@s:w@host:5433/db')).toBe('postgres://u@host:5433/db');
    expect(databaseIdentity('postgres://:p/ss@host/db')).toBe('postgres://host/db');
    expect(databaseIdentity('postgres://u:p/ss@host/db?password=p/ss')).toBe('postgres://u@host/db');
  });
});
