import type { ExternalSurface } from './surfaces/surface-ports.ts';
import type { PlanName } from './organizations/plans.ts';

export type OrgRole = 'admin' | 'member';
export type WorkspaceRole = 'owner' | 'editor' | 'viewer';
export type WorkspaceKind = 'simplified' | 'structured';
export type AgentKind = 'agent' | 'person';
/** Where a message or decision came from: Switchboard's own MCP and web chat, or a chat surface by the name it registered. */
export type SurfaceName = 'mcp' | 'web' | ExternalSurface;
/** The built-in web chat's name among surfaces (its conversations and messages carry it). */
export const WEB_CHAT = 'web' satisfies SurfaceName;
/** Agents' own surface: what they write over MCP (and Switchboard's system posts) carries it. */
const MCP = 'mcp' satisfies SurfaceName;
/** True for a chat app's surface (registered by its adapter); false for Switchboard's own web chat and MCP. */
export const isChatApp = (surface: SurfaceName): surface is ExternalSurface => surface !== WEB_CHAT && surface !== MCP;

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: PlanName;
  licensedMessages: number;
  /** The person whose own Free organization this is, or null for a shared one. */
  personalFor: string | null;
  createdAt: Date;
}

export interface Person {
  id: string;
  handle: string;
  displayName: string;
  email: string | null;
  createdAt: Date;
}

export interface OrgMember {
  orgId: string;
  personId: string;
  role: OrgRole;
  hasSeat: boolean;
}

export interface Workspace {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  restricted: boolean;
  kind: WorkspaceKind;
  description: string;
  instructions: string;
  /** When true, agents receive nothing from chat users who have not linked their account. */
  requireLinking: boolean;
  createdAt: Date;
}

export interface Agent {
  id: string;
  ownerId: string;
  ownerHandle: string;
  name: string;
  displayName: string;
  avatarUrl: string | null;
  roleLine: string;
  kind: AgentKind;
  /** True while the agent holds a valid token (person agents never do). */
  hasToken: boolean;
  createdAt: Date;
}

export interface AgentPermissions {
  send: boolean;
  receive: boolean;
  /** Agent ids it may send to; empty means anyone in the workspace. */
  canMessage: string[];
  /** Agent ids it accepts messages from; empty means anyone. */
  takesMessagesFrom: string[];
  monitor: boolean;
}

export interface AgentMembership extends AgentPermissions {
  agentId: string;
  workspaceId: string;
}

export const PERSON_AGENT_PERMISSIONS: AgentPermissions = {
  send: true,
  receive: true,
  canMessage: [],
  takesMessagesFrom: [],
  monitor: false,
};

/** `alice/builder`: how an agent is named unambiguously. */
export const qualifiedName = (a: Pick<Agent, 'ownerHandle' | 'name'>) => `${a.ownerHandle}/${a.name}`;
