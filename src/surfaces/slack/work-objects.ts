// What a Switchboard link shows in Slack: a Work Object (entity metadata for
// chat.unfurl and entity.presentDetails, https://docs.slack.dev/messaging/work-objects).
// An approval or an intake item is a task entity with its status, a document a
// content item, a conversation a general item; a link the readers may not see
// is an item titled "Switchboard link" with the link to open it and nothing
// else. A pending approval carries the Approve and Reject buttons of approval
// cards (the same action ids, so a click goes the same way: approvals.ts) when
// the person who shared or opened the link may decide it.
import type { types } from '@slack/bolt';
import { HIDDEN_TITLE, type LinkPreview } from '../../core/previews/preview-service.ts';
import { qualifiedName } from '../../core/entities.ts';
import { APPROVE_ACTION, REJECT_ACTION } from './cards.ts';

type Entity = types.EntityMetadata;
type Payload = Entity['entity_payload'];
type Field = types.EntityCustomField;

const TASK = 'slack#/entities/task';
const CONTENT_ITEM = 'slack#/entities/content_item';
const ITEM = 'slack#/entities/item';

/** Slack's longest text field and title (longer ones are cut, with an ellipsis). */
const MAX_TEXT = 3000;
const MAX_TITLE = 255;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

const STATUS_COLOR: Record<string, string> = {
  pending: 'yellow',
  approved: 'green',
  rejected: 'red',
  new: 'blue',
  triaged: 'blue',
  'in progress': 'yellow',
  done: 'green',
};

const status = (value: string) => ({ value, tag_color: STATUS_COLOR[value] ?? 'gray' });
const text = (key: string, label: string, value: string, long = false): Field => ({
  key,
  label,
  type: 'string',
  value: clip(value, MAX_TEXT),
  ...(long ? { long: true } : {}),
});
const when = (key: string, label: string, d: Date): Field => ({
  key,
  label,
  type: 'slack#/types/timestamp',
  value: seconds(d),
});
const description = (markdown: string) =>
  markdown.trim() ? { description: { value: clip(markdown, MAX_TEXT), format: 'markdown', long: true } } : {};

/** The entity's payload as the preview shows it. */
function payload(p: LinkPreview): { type: string; payload: Payload } {
  const attributes = (title: string, displayType: string, extra: Partial<Payload['attributes']> = {}) => ({
    title: { text: clip(title, MAX_TITLE) },
    display_type: displayType,
    product_name: 'Switchboard',
    ...extra,
  });
  if (p.kind === 'hidden')
    return {
      type: ITEM,
      payload: {
        attributes: attributes(HIDDEN_TITLE, 'Link'),
        custom_fields: [{ key: 'open', label: 'Open in Switchboard', type: 'slack#/types/link', value: p.link.url }],
      },
    };
  const modified = { metadata_last_modified: seconds(p.updatedAt) };
  switch (p.kind) {
    case 'approval': {
      const { approval: a, agent } = p;
      const pending = a.status === 'pending';
      return {
        type: TASK,
        payload: {
          attributes: attributes(a.title, 'Approval', modified),
          fields: {
            ...description(a.details),
            status: status(a.status),
            created_by: { type: 'slack#/types/user', user: { text: agent.displayName } },
            date_created: { value: seconds(a.createdAt) },
            date_updated: { value: seconds(p.updatedAt) },
            ...(a.expiresAt && pending
              ? { due_date: { type: 'slack#/types/timestamp', value: seconds(a.expiresAt) } }
              : {}),
          },
          custom_fields: [
            text('agent', 'Asked by', `${agent.displayName} (${qualifiedName(agent)})`),
            ...(p.outcome ? [text('outcome', 'Outcome', p.outcome, true)] : []),
          ],
          ...(p.mayDecide
            ? {
                actions: {
                  primary_actions: [
                    { text: 'Approve', action_id: APPROVE_ACTION, style: 'primary', value: a.id },
                    { text: 'Reject', action_id: REJECT_ACTION, style: 'danger', value: a.id },
                  ],
                },
              }
            : {}),
        },
      };
    }
    case 'intake':
      return {
        type: TASK,
        payload: {
          attributes: attributes(p.item.title, 'Intake item', modified),
          fields: {
            ...description(p.item.summary),
            status: status(p.item.status),
            date_created: { value: seconds(p.item.createdAt) },
            date_updated: { value: seconds(p.item.updatedAt) },
          },
          custom_fields: [
            text('kind', 'Kind', p.item.kind),
            { key: 'sources', label: 'Messages', type: 'integer', value: p.sources },
          ],
        },
      };
    case 'document': {
      const d = p.document;
      return {
        type: CONTENT_ITEM,
        payload: {
          attributes: attributes(d.title, 'Document', { ...modified, display_id: d.identifier }),
          fields: {
            ...description(d.summary),
            date_created: { value: seconds(d.createdAt) },
            date_updated: { value: seconds(d.updatedAt) },
            ...(d.updatedBy ? { last_modified_by: { type: 'slack#/types/user', user: { text: d.updatedBy } } } : {}),
          },
          custom_fields: [text('status', 'Status', d.archived ? `${d.status} (archived)` : d.status)],
        },
      };
    }
    case 'conversation': {
      const c = p.conversation;
      return {
        type: ITEM,
        payload: {
          attributes: attributes(c.title || 'Conversation', 'Conversation', modified),
          custom_fields: [
            text('where', 'Where', p.via ?? 'Web chat'),
            when('started', 'Started', c.createdAt),
            ...(p.lastMessageAt ? [when('last_message', 'Last message', p.lastMessageAt)] : []),
          ],
        },
      };
    }
  }
}

/**
 * The Work Object for a preview. `posted` is the link exactly as it was shared (chat.unfurl needs it as
 * `app_unfurl_url`); null for the details pane (entity.presentDetails), which takes none.
 */
export function workObject(p: LinkPreview, posted: string | null): Entity {
  const { type, payload: entity_payload } = payload(p);
  return {
    ...(posted ? { app_unfurl_url: posted } : {}),
    url: p.kind === 'hidden' ? p.link.url : p.url,
    // Unique per item: a document's identifier is unique only in its workspace.
    external_ref: { id: `${p.link.workspace}/${p.link.id}`, type: p.link.kind },
    entity_type: type,
    entity_payload,
  };
}
