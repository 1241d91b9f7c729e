import { describe, expect, it } from 'vitest';
import { COLLECTION_TYPES, collectionType, SIMPLIFIED_TYPE } from '../../../src/core/documents/catalogue.ts';
import {
  assertMayShape,
  assertMayWrite,
  assertStatus,
  documentToolset,
  normalizeStatuses,
  seatRefusal,
  staleVersion,
} from '../../../src/core/documents/rules.ts';
import type { DocumentAccess } from '../../../src/core/documents/document.ts';
import type { SwitchboardError } from '../../../src/core/errors.ts';

const access = (role: DocumentAccess['role'], hasSeat: boolean): DocumentAccess => ({
  role,
  hasSeat,
  agentId: null,
  personHandle: 'bob',
  org: { name: 'Acme', slug: 'acme' },
});

const codeOf = (fn: () => void) => {
  try {
    fn();
    return null;
  } catch (e) {
    return (e as SwitchboardError).code;
  }
};

describe('document tools by role and seat', () => {
  it.each([
    ['structured', 'viewer', true, 4],
    ['structured', 'editor', true, 6],
    ['structured', 'owner', true, 9],
    ['simplified', 'viewer', true, 4],
    ['simplified', 'editor', true, 6],
    ['simplified', 'owner', true, 7],
    ['structured', 'editor', false, 4],
    ['structured', 'owner', false, 4],
    ['simplified', 'owner', false, 4],
  ] as const)('%s workspace, %s with seat=%s gets %i tools', (kind, role, seat, n) => {
    expect(documentToolset(kind, role, seat).granted).toHaveLength(n);
  });

  it('withholds for a missing seat exactly what the role would write with', () => {
    expect(documentToolset('structured', 'owner', false).withheldForSeat).toEqual([
      'create_document',
      'update_document',
      'get_available_collection_types',
      'create_collection',
      'update_collection_instructions',
    ]);
    expect(documentToolset('simplified', 'editor', false).withheldForSeat).toEqual([
      'create_document',
      'update_document',
    ]);
    expect(documentToolset('structured', 'viewer', false).withheldForSeat).toEqual([]);
  });

  it('replaces the collection tools with update_workspace_instructions in a Simplified workspace', () => {
    const tools = documentToolset('simplified', 'owner', true).granted;
    expect(tools).toContain('update_workspace_instructions');
    expect(tools).not.toContain('create_collection');
  });
});

describe('who may write', () => {
  it('refuses a viewer about the role and a seatless editor about the seat', () => {
    expect(codeOf(() => assertMayWrite(access('viewer', true)))).toBe('NOT_PERMITTED');
    expect(codeOf(() => assertMayWrite(access('editor', false)))).toBe('NEEDS_SEAT');
    expect(codeOf(() => assertMayWrite(access('editor', true)))).toBeNull();
    expect(codeOf(() => assertMayShape(access('editor', true), 'open a collection'))).toBe('NOT_PERMITTED');
    expect(codeOf(() => assertMayShape(access('owner', false), 'open a collection'))).toBe('NEEDS_SEAT');
  });

  it('names the seat, the organization and the command that assigns one', () => {
    const e = seatRefusal(access('editor', false));
    expect(e.message).toContain('needs a seat in the organization Acme, and @bob holds none');
    expect(e.message).toContain('switchboard seat grant bob --org acme');
  });
});

describe('the optimistic-concurrency rule', () => {
  it('carries the current updated_at and tells the writer to read again and redo the change', () => {
    const e = staleVersion(
      { identifier: 'SPEC-3', updatedAt: new Date('2030-01-01T00:00:00.005Z'), updatedBy: 'alice/builder' },
      new Date('2030-01-01T00:00:00.001Z'),
    );
    expect(e.code).toBe('STALE_VERSION');
    expect(e.details).toEqual({ current_updated_at: '2030-01-01T00:00:00.005Z', updated_by: 'alice/builder' });
    expect(e.message).toContain('Read it again with get_document and redo your change');
  });
});

describe('statuses and the catalogue', () => {
  it("accepts only a collection's statuses", () => {
    const c = { statuses: ['draft', 'final'], name: 'Notes', hidden: false };
    expect(codeOf(() => assertStatus(c, 'final'))).toBeNull();
    expect(() => assertStatus(c, 'done')).toThrow('use one of: draft, final');
  });

  it('normalizes new statuses and refuses none or too many', () => {
    expect(normalizeStatuses([' Draft ', 'draft', 'Final'])).toEqual(['draft', 'final']);
    expect(() => normalizeStatuses([' '])).toThrow('at least one status');
    expect(() => normalizeStatuses(Array.from({ length: 13 }, (_, i) => `s${i}`))).toThrow('at most 12');
  });

  it('gives every catalogue type a prefix and default statuses, and keeps the Simplified type out of the offer', () => {
    for (const t of COLLECTION_TYPES) expect(t.defaultStatuses.length && t.prefix).toBeTruthy();
    expect(COLLECTION_TYPES.map((t) => t.type)).not.toContain(SIMPLIFIED_TYPE.type);
    expect(collectionType('documents')).toBe(SIMPLIFIED_TYPE);
    expect(collectionType('nope')).toBeNull();
  });
});
