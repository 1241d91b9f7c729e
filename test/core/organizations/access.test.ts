import { describe, expect, it } from 'vitest';
import {
  assertMayGrantMonitor,
  assertMayManageAgent,
  assertOrgAdmin,
  leastRole,
  workspaceRole,
} from '../../../src/core/organizations/access.ts';

describe('workspace access', () => {
  const open = { restricted: false };
  const restricted = { restricted: true };

  it('makes organization admins owners of every workspace, restricted or not', () => {
    expect(workspaceRole(open, 'admin', null)).toBe('owner');
    expect(workspaceRole(restricted, 'admin', 'viewer')).toBe('owner');
  });

  it('opens an unrestricted workspace to every organization member', () => {
    expect(workspaceRole(open, 'member', null)).toBe('viewer');
    expect(workspaceRole(open, 'member', 'editor')).toBe('editor');
  });

  it('opens a restricted workspace only to people added directly', () => {
    expect(workspaceRole(restricted, 'member', null)).toBeNull();
    expect(workspaceRole(restricted, 'member', 'editor')).toBe('editor');
    expect(workspaceRole(restricted, null, 'viewer')).toBe('viewer');
  });

  it('gives outsiders nothing', () => {
    expect(workspaceRole(open, null, null)).toBeNull();
  });

  it('caps what an agent does for someone by the lesser role', () => {
    expect(leastRole('owner', 'viewer')).toBe('viewer');
    expect(leastRole('editor', 'owner')).toBe('editor');
    expect(leastRole('owner', null)).toBeNull();
  });
});

describe('who may manage what', () => {
  it('lets only admins manage the organization', () => {
    expect(() => assertOrgAdmin('admin', 'do it')).not.toThrow();
    expect(() => assertOrgAdmin('member', 'assign seats')).toThrow('Only an organization admin can assign seats.');
  });

  it('lets members change only their own agents', () => {
    expect(() => assertMayManageAgent('p1', { ownerId: 'p1' }, false)).not.toThrow();
    expect(() => assertMayManageAgent('p2', { ownerId: 'p1' }, false)).toThrow(/owner or an admin/);
    expect(() => assertMayManageAgent('p2', { ownerId: 'p1' }, true)).not.toThrow();
  });

  it('lets only workspace owners grant monitor', () => {
    expect(() => assertMayGrantMonitor('owner')).not.toThrow();
    expect(() => assertMayGrantMonitor('editor')).toThrow(/monitor/);
  });
});
