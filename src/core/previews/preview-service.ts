// What a Switchboard link shows where it is pasted (a chat app's link
// preview): the item's live state, but only when everyone who reads the preview
// may see the item themselves. A chat channel's preview is read by all its
// members, so they are the audience, with the audience rules agents follow
// (../linking/audience.ts): nobody unlinked, nobody without access to the
// workspace, nobody outside the item's own audience. Otherwise, and for a link
// to nothing or to another workspace, the preview is only a title and the link:
// it never says whether the item exists.
import type { ApprovalService } from '../approvals/approval-service.ts';
import type { Approval } from '../approvals/approval.ts';
import { refusalToDecide } from '../approvals/rules.ts';
import type { ChannelService } from '../channels/channel-service.ts';
import type { DocumentService } from '../documents/document-service.ts';
import type { DocumentSummary } from '../documents/document.ts';
import { isSwitchboardError } from '../errors.ts';
import type { IntakeService } from '../intake/intake-service.ts';
import type { IntakeItem } from '../intake/intake-item.ts';
import { atLeastLevel, isWider, type Audience } from '../linking/audience.ts';
import type { ChatChannel } from '../linking/audience-ports.ts';
import type { AudienceService } from '../linking/audience-service.ts';
import type { Conversation } from '../messaging/message.ts';
import type { OrgService } from '../organizations/org-service.ts';
import type { Store } from '../ports.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Agent, Workspace } from '../entities.ts';
import { conversationLink, itemLink, parseLink, type SwitchboardLink } from './links.ts';

/** Who reads a preview: a chat channel's members, or these people alone (a DM with the app; null for someone unlinked). */
export type PreviewReaders =
  | ({ kind: 'channel'; surface: ExternalSurface } & ChatChannel)
  | { kind: 'people'; personIds: Array<string | null> };

/** Where a preview is asked for and for whom. */
export interface PreviewRequest {
  /** The workspace the chat team or tenant is connected to; a link to any other workspace shows only its title. */
  workspaceId: string | null;
  readers: PreviewReaders;
  /** Who shared or opened the link: a pending approval's buttons are offered only when they may decide it. */
  viewer: { personId: string | null; identityId: string | null };
}

interface Shown {
  link: SwitchboardLink;
  /** The item's own link (the posted one may carry more, such as a thread's channel). */
  url: string;
  workspace: Workspace;
  /** When what the preview shows last changed. */
  updatedAt: Date;
}

/** What a preview shows: the item as it stands, or (`hidden`) only a title and the link. */
export type LinkPreview =
  | { kind: 'hidden'; link: SwitchboardLink }
  | (Shown & {
      kind: 'approval';
      approval: Approval;
      agent: Agent;
      /** "Approved by @alice in Slack at 14:02 UTC"; null while pending. */
      outcome: string | null;
      /** Pending, and the viewer may decide it. */
      mayDecide: boolean;
    })
  | (Shown & { kind: 'intake'; item: IntakeItem; sources: number })
  | (Shown & { kind: 'document'; document: DocumentSummary })
  | (Shown & {
      kind: 'conversation';
      conversation: Conversation;
      /** The chat app it lives in ("Slack"); null for the web chat. */
      via: string | null;
      lastMessageAt: Date | null;
    });

/** The title a preview has when it shows nothing of the item. */
export const HIDDEN_TITLE = 'Switchboard link';

/** Whether everyone in the audience is a linked person who can reach the workspace (and there is someone). */
const everyoneHasAccess = (a: Audience) =>
  a.known && a.unlinked === 0 && a.personIds.length > 0 && atLeastLevel(a.level, 'viewer');

export class LinkPreviewService {
  constructor(
    private readonly store: Store,
    private readonly services: {
      orgs: OrgService;
      approvals: ApprovalService;
      audiences: AudienceService;
      documents: DocumentService;
      intake: IntakeService;
      channels: Pick<ChannelService, 'via'>;
    },
    private readonly publicUrl: string,
  ) {}

  /** What a link names, when it is a link to one item on this Switchboard; null for any other link. */
  parse(url: string): SwitchboardLink | null {
    return parseLink(url, this.publicUrl);
  }

  /** The preview of a link for these readers: the item's state when they may all see it, else only its title. */
  async preview(link: SwitchboardLink, req: PreviewRequest): Promise<LinkPreview> {
    const hidden: LinkPreview = { kind: 'hidden', link };
    const ws = await this.store.workspaces.get(link.workspace);
    if (!ws || ws.id !== req.workspaceId) return hidden;
    const readers =
      req.readers.kind === 'channel'
        ? await this.services.audiences.ofChatChannel(ws, req.readers.surface, req.readers)
        : await this.services.audiences.ofPeople(ws, req.readers.personIds);
    if (!everyoneHasAccess(readers)) return hidden;
    try {
      return (await this.shown(ws, link, readers, req.viewer)) ?? hidden;
    } catch (e) {
      // An item gone (or never there) looks like one the readers may not see.
      if (isSwitchboardError(e) && e.code === 'NOT_FOUND') return hidden;
      throw e;
    }
  }

  private async shown(
    ws: Workspace,
    link: SwitchboardLink,
    readers: Audience,
    viewer: PreviewRequest['viewer'],
  ): Promise<LinkPreview | null> {
    const { approvals, documents, intake, channels } = this.services;
    const base = { link, workspace: ws };
    switch (link.kind) {
      case 'document': {
        // Any role in the workspace reads its documents (deactivated collections included, as on the web pages).
        const document = await documents.get(ws, link.id, { includeInactive: true });
        const url = itemLink(this.publicUrl, ws, 'document', document.identifier);
        return { ...base, kind: 'document', url, document, updatedAt: document.updatedAt };
      }
      case 'conversation': {
        const conversation = await this.store.messages.getConversation(ws.id, link.id);
        if (!conversation || !(await this.mayRead(ws, readers, conversation))) return null;
        const [last] = await this.store.messages.listConversation(ws.id, conversation.id, 1);
        return {
          ...base,
          kind: 'conversation',
          url: conversationLink(this.publicUrl, ws, conversation),
          conversation,
          via: channels.via(conversation.surface),
          lastMessageAt: last?.createdAt ?? null,
          updatedAt: last?.createdAt ?? conversation.createdAt,
        };
      }
      case 'intake': {
        // As private as its most private source: the readers must be in the audience of every message it came from.
        const item = await intake.detail(ws, link.id);
        for (const s of item.sources) {
          const c = await this.store.messages.getConversation(ws.id, s.conversationId);
          if (!c || !(await this.mayRead(ws, readers, c))) return null;
        }
        const url = itemLink(this.publicUrl, ws, 'intake', item.id);
        return { ...base, kind: 'intake', url, item, sources: item.sources.length, updatedAt: item.updatedAt };
      }
      case 'approval': {
        const approval = await approvals.find(ws.id, link.id);
        const agent = approval && (await approvals.askingAgent(approval));
        if (!approval || !agent || !(await this.maySeeApproval(ws, readers, approval, agent))) return null;
        const pending = approval.status === 'pending';
        return {
          ...base,
          kind: 'approval',
          url: itemLink(this.publicUrl, ws, 'approval', approval.id),
          approval,
          agent,
          outcome: pending ? null : await approvals.outcome(approval),
          mayDecide: pending && (await this.mayDecide(ws, approval, agent, viewer)),
          updatedAt: approval.decidedAt ?? approval.createdAt,
        };
      }
    }
  }

  /** Whether the readers all read the conversation: nobody among them is outside its own audience. */
  private async mayRead(ws: Workspace, readers: Audience, c: Conversation): Promise<boolean> {
    return !isWider(readers, await this.services.audiences.of(ws, c));
  }

  /** As the web chat shows it: to the readers of the conversation it was asked in, or to the people who may decide it. */
  private async maySeeApproval(ws: Workspace, readers: Audience, a: Approval, agent: Agent): Promise<boolean> {
    const conversation = await this.services.approvals.conversationOf(a);
    if (conversation && (await this.mayRead(ws, readers, conversation))) return true;
    const allowed = new Set([...(await this.services.approvals.approversOf(a)), agent.ownerId]);
    return readers.personIds.every((p) => allowed.has(p));
  }

  private async mayDecide(
    ws: Workspace,
    a: Approval,
    agent: Agent,
    viewer: PreviewRequest['viewer'],
  ): Promise<boolean> {
    if (!viewer.personId) return false;
    const role = await this.services.orgs.roleIn(viewer.personId, ws);
    const decider = { personId: viewer.personId, role, identityId: viewer.identityId };
    return refusalToDecide(a, decider, agent.ownerId, await this.services.approvals.guestAsker(a)) === null;
  }
}
