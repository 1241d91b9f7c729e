// Switchboard links pasted into a Teams message: the message extension's
// `composeExtension/queryLink` invoke (the manifest's `messageHandlers` of type
// link, for PUBLIC_URL's host), answered with an Adaptive Card while the
// message is being written. Everyone in the conversation reads the card once it
// is sent, so it shows the item only when they may all see it
// (LinkPreviewService); otherwise a title and the link. A pending approval is
// the approval card itself (approval-card.ts): its buttons when the person
// pasting may decide, and the refresh that shows each approver their own,
// current view. Teams keeps no copy of the answer (no-cache), so the same link
// pasted elsewhere is worked out again for that conversation.
import type { AppBasedLinkQuery, MessagingExtensionResponse, TurnContext } from 'botbuilder';
import type { LinkPreview, PreviewReaders } from '../../core/previews/preview-service.ts';
import { HIDDEN_TITLE } from '../../core/previews/preview-service.ts';
import { approvalCard } from './approval-card.ts';
import { placeOf } from './audience.ts';
import { adaptiveCard, CARD_RESPONSE_TYPE, type Card } from './cards.ts';
import { addressOf, authorOf } from './inbound.ts';
import { workspaceOfTenant, type TeamsRuntime } from './runtime.ts';
import { TEAMS } from './topics.ts';
import type { TeamsAddress } from './thread-id.ts';

const day = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const title = (text: string): Card => ({ type: 'TextBlock', text, weight: 'Bolder', size: 'Medium', wrap: true });
const line = (text: string): Card => ({ type: 'TextBlock', text, isSubtle: true, spacing: 'None', wrap: true });
const facts = (pairs: Array<[string, string]>): Card => ({
  type: 'FactSet',
  facts: pairs.map(([t, value]) => ({ title: t, value })),
});
const open = (url: string): Card => ({ type: 'Action.OpenUrl', title: 'Open in Switchboard', url });
const text = (markdown: string): Card[] => (markdown.trim() ? [{ type: 'TextBlock', text: markdown, wrap: true }] : []);

/** The card of a preview other than a pending or settled approval's (which is the approval card). */
function itemCard(p: Exclude<LinkPreview, { kind: 'approval' }>): Card {
  if (p.kind === 'hidden')
    return adaptiveCard([title(HIDDEN_TITLE)], { actions: [open(p.link.url)], fallbackText: HIDDEN_TITLE });
  const card = (body: Card[], fallback: string) =>
    adaptiveCard(body, { actions: [open(p.url)], fallbackText: fallback });
  switch (p.kind) {
    case 'document': {
      const d = p.document;
      return card(
        [
          title(d.title),
          line(`Document ${d.identifier}`),
          ...text(d.summary),
          facts([
            ['Status', d.archived ? `${d.status} (archived)` : d.status],
            ['Updated', `${day(d.updatedAt)}${d.updatedBy ? ` by ${d.updatedBy}` : ''}`],
          ]),
        ],
        `${d.identifier}: ${d.title}`,
      );
    }
    case 'intake':
      return card(
        [
          title(p.item.title),
          line(`Intake item · ${p.item.kind}`),
          ...text(p.item.summary),
          facts([
            ['Status', p.item.status],
            ['Messages', String(p.sources)],
            ['Updated', day(p.item.updatedAt)],
          ]),
        ],
        `Intake item: ${p.item.title}`,
      );
    case 'conversation':
      return card(
        [
          title(p.conversation.title || 'Conversation'),
          line(`Conversation · ${p.via ?? 'Web chat'}`),
          facts([
            ['Started', day(p.conversation.createdAt)],
            ...(p.lastMessageAt ? [['Last message', day(p.lastMessageAt)] as [string, string]] : []),
          ]),
        ],
        `Conversation: ${p.conversation.title}`,
      );
  }
}

/** The card for a preview; an approval's is the approval card, its automatic refresh for the approvers Teams knows. */
async function cardOf(rt: TeamsRuntime, p: LinkPreview, tenant: string): Promise<Card> {
  if (p.kind !== 'approval') return itemCard(p);
  const approvers = await rt.core.approvals.approversOf(p.approval);
  const users = p.approval.status === 'pending' ? await rt.users.ofPeople(tenant, approvers) : [];
  return approvalCard({
    approval: p.approval,
    agent: p.agent,
    outcome: p.outcome ?? (await rt.core.approvals.outcome(p.approval)),
    buttons: p.mayDecide,
    approverUserIds: users.map((u) => u.userId),
  });
}

/**
 * Who reads what is written here: a channel's or group chat's members; in the personal chat with the bot, the person
 * alone; null for any other chat (a chat between people, which the bot is not in), whose members it cannot read.
 */
async function readersOf(
  rt: TeamsRuntime,
  a: TeamsAddress,
  aad: string,
  personId: string | null,
): Promise<PreviewReaders | null> {
  const place = placeOf(a);
  if (place.kind === 'channel')
    return { kind: 'channel', surface: TEAMS.surface, tenantId: place.tenantId, channelId: place.channelId };
  const user = await rt.users.get(a.tenant, aad);
  return user?.personalConversationId === a.conversation ? { kind: 'people', personIds: [personId] } : null;
}

/** The answer to a queryLink invoke: one card for the link, and no copy kept by Teams. */
export async function queryLink(
  rt: TeamsRuntime,
  context: TurnContext,
  query: AppBasedLinkQuery,
): Promise<MessagingExtensionResponse> {
  const url = query.url ?? '';
  const link = rt.core.previews.parse(url);
  const address = addressOf(context.activity);
  // Not a link to one item here (another host, a page): nothing to add to what Teams shows.
  if (!link || !address) return { composeExtension: { type: 'result', attachmentLayout: 'list', attachments: [] } };
  const aad = authorOf(context.activity);
  const identity = await rt.core.identities.find({
    surface: TEAMS.surface,
    tenantId: address.tenant,
    externalUserId: aad,
  });
  const personId = identity?.personId ?? null;
  const readers = await readersOf(rt, address, aad, personId);
  const workspace = await workspaceOfTenant(rt, address.tenant);
  const preview: LinkPreview = readers
    ? await rt.core.previews.preview(link, {
        workspaceId: workspace?.id ?? null,
        readers,
        viewer: { personId, identityId: identity?.id ?? null },
      })
    : { kind: 'hidden', link };
  const card = await cardOf(rt, preview, address.tenant);
  const heading = preview.kind === 'hidden' ? HIDDEN_TITLE : previewTitle(preview);
  return {
    composeExtension: {
      type: 'result',
      attachmentLayout: 'list',
      attachments: [
        {
          contentType: CARD_RESPONSE_TYPE,
          content: card,
          preview: { contentType: 'application/vnd.microsoft.card.thumbnail', content: { title: heading, text: url } },
        },
      ],
      // The card depends on who reads the conversation: Teams must not show it again elsewhere.
      suggestedActions: { actions: [{ type: 'setCachePolicy', title: 'no-cache', value: '{"type":"no-cache"}' }] },
    },
  };
}

const previewTitle = (p: Exclude<LinkPreview, { kind: 'hidden' }>) => {
  switch (p.kind) {
    case 'approval':
      return p.approval.title;
    case 'intake':
      return p.item.title;
    case 'document':
      return `${p.document.identifier}: ${p.document.title}`;
    case 'conversation':
      return p.conversation.title || 'Conversation';
  }
};
