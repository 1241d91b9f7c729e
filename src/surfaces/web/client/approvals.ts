// Approval cards: in the conversation they were asked in, and at the top of the
// inbox for the people who may decide them. Approve or Reject (with an optional
// reason) posts the decision; every card follows live through the `approval` event.
import { api, w } from './api.ts';
import { announce, avatar, h, redraw, richText, time } from './dom.ts';
import { store } from './store.ts';
import type { Approval } from './types.ts';

const STATUS_LABEL: Record<Approval['status'], string> = {
  pending: 'Waiting',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
  cancelled: 'Cancelled',
};
let seq = 0;

/** One card. `ws` is the workspace slug; a decision replaces the card in place. */
export function approvalCard(ws: string, card: Approval): HTMLLIElement {
  const titleId = `approval-title-${++seq}`;
  const footer = h('div', { class: 'approval-footer' });
  if (card.status === 'pending' && card.canDecide) footer.append(decisionForm(ws, card));
  else if (card.status === 'pending') {
    footer.append(
      h(
        'p',
        { class: 'hint' },
        card.approvers.length
          ? `Waiting for ${card.approvers.map((a) => `@${a}`).join(', ')} to decide.`
          : 'Waiting for a decision.',
      ),
    );
  } else {
    footer.append(h('p', { class: `approval-outcome approval-${card.status}`, role: 'status' }, card.outcome));
  }
  return h(
    'li',
    {
      class: `approval-card approval-${card.status}`,
      id: `approval-${card.id}`,
      'aria-labelledby': titleId,
      dataset: { approval: card.id, createdAt: card.createdAt },
    },
    avatar(card.agent),
    h(
      'div',
      {},
      h(
        'div',
        { class: 'meta' },
        h('span', { class: 'sender' }, card.agent.displayName),
        h('span', { class: 'tag' }, 'approval'),
        h('span', { class: `approval-status approval-${card.status}` }, STATUS_LABEL[card.status] ?? card.status),
        // Its own address, to share (pasted into Slack or Teams, it is previewed there).
        h(
          'a',
          {
            class: 'permalink',
            href: `#/w/${encodeURIComponent(ws)}/approvals/${card.id}`,
            title: 'Link to this approval',
          },
          time(card.createdAt),
        ),
      ),
      h('p', { class: 'approval-title', id: titleId }, card.title),
      card.details ? h('div', { class: 'body' }, richText(card.details)) : null,
      card.expiresAt && card.status === 'pending'
        ? h('p', { class: 'hint' }, 'Expires ', time(card.expiresAt), '.')
        : null,
      footer,
    ),
  );
}

function decisionForm(ws: string, card: Approval) {
  const reasonId = `approval-reason-${card.id}`;
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const reason = h('textarea', {
    id: reasonId,
    name: 'reason',
    rows: '2',
    maxlength: '1000',
    placeholder: 'Optional; the agent reads it',
  });
  // The card is redrawn whenever its approval's event arrives (it may come once per topic the person follows): what was typed stays.
  reason.value = store.state.reasonDrafts.get(card.id) ?? '';
  reason.addEventListener('input', () =>
    store.update({ reasonDrafts: new Map(store.state.reasonDrafts).set(card.id, reason.value) }),
  );
  const form = h(
    'form',
    { class: 'approval-form' },
    h('label', { for: reasonId }, 'Reason'),
    reason,
    h(
      'div',
      { class: 'approval-buttons' },
      h('button', { type: 'submit', class: 'primary', name: 'decision', value: 'approve' }, 'Approve'),
      h('button', { type: 'submit', class: 'secondary danger', name: 'decision', value: 'reject' }, 'Reject'),
    ),
    error,
  );
  const buttons = () => form.querySelectorAll('button');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const decision = (e.submitter as HTMLButtonElement | null)?.value === 'reject' ? 'reject' : 'approve';
    for (const b of buttons()) b.disabled = true;
    try {
      const r = await api<{ approval: Approval }>('POST', w(ws, `/approvals/${card.id}/decision`), {
        decision,
        reason: reason.value.trim() || undefined,
      });
      updateApproval(ws, r.approval);
      announce(r.approval.outcome);
    } catch (err) {
      // Someone else may have settled it first: say so, and show the card as it stands now.
      const message = (err as Error).message;
      error.textContent = message;
      error.hidden = false;
      for (const b of buttons()) b.disabled = false;
      api<{ approval: Approval }>('GET', w(ws, `/approvals/${card.id}`)).then(
        (r) => {
          if (r.approval.status !== 'pending') updateApproval(ws, r.approval, { note: message });
        },
        () => {},
      );
    }
  });
  return form;
}

/**
 * Redraws every card of this approval on the page; a new one is added to its
 * conversation's message list when `listFor(conversationId)` says it is open.
 */
export function updateApproval(
  ws: string,
  card: Approval,
  { note, listFor }: { note?: string; listFor?: (id: string) => HTMLElement | null } = {},
): void {
  if (card.status !== 'pending') {
    const reasonDrafts = new Map(store.state.reasonDrafts);
    reasonDrafts.delete(card.id);
    store.update({ settled: new Map(store.state.settled).set(card.id, { ws, card }), reasonDrafts });
  }
  const existing = document.querySelectorAll(`[data-approval="${CSS.escape(card.id)}"]`);
  for (const el of existing) {
    const next = approvalCard(ws, card);
    if (note)
      next.querySelector('.approval-footer')?.prepend(h('p', { class: 'notice notice-info', role: 'alert' }, note));
    redraw(el, next);
  }
  if (existing.length || !card.conversationId) return;
  const list = listFor?.(card.conversationId);
  if (list) placeCard(list, approvalCard(ws, card));
}

/** Puts a card among the messages of a list by time (every item carries `data-created-at`). */
function placeCard(list: HTMLElement, li: HTMLLIElement) {
  list.querySelector('.empty')?.remove();
  const at = Date.parse(li.dataset.createdAt ?? '');
  const after = [...list.children].find((el) => {
    const t = (el as HTMLElement).dataset.createdAt;
    return t && Date.parse(t) > at;
  });
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
  list.insertBefore(li, after ?? null);
  if (stick) list.scrollTop = list.scrollHeight;
}

/** Adds the approvals asked in a conversation to its message list. */
export async function showApprovals(ws: string, conversationId: string, list: HTMLElement): Promise<void> {
  const { approvals } = await api<{ approvals: Approval[] }>(
    'GET',
    w(ws, `/approvals?conversation=${encodeURIComponent(conversationId)}`),
  );
  for (const card of approvals) {
    if (!list.querySelector(`[data-approval="${CSS.escape(card.id)}"]`)) placeCard(list, approvalCard(ws, card));
  }
}

/** The inbox's "waiting for you" section; null when nothing waits. The settled ones come from the store, not the DOM. */
async function waitingApprovals(ws: string): Promise<HTMLElement | null> {
  const { approvals } = await api<{ approvals: Approval[] }>('GET', w(ws, '/approvals'));
  const settled = [...store.state.settled.values()]
    .filter((s) => s.ws === ws && !approvals.some((a) => a.id === s.card.id))
    .map((s) => s.card);
  if (!approvals.length && !settled.length) return null;
  return h(
    'section',
    { class: 'approvals-waiting', 'aria-labelledby': 'approvals-heading' },
    h(
      'h2',
      { id: 'approvals-heading' },
      approvals.length ? `Waiting for your decision (${approvals.length})` : 'Approvals',
    ),
    h('ol', { class: 'messages approvals-list' }, ...[...approvals, ...settled].map((c) => approvalCard(ws, c))),
  );
}

/** Puts the waiting approvals at the top of an inbox page (under its heading). */
export async function addWaitingApprovals(ws: string, page: HTMLElement): Promise<HTMLElement> {
  const section = await waitingApprovals(ws);
  if (section) page.querySelector('h1')?.after(section);
  return page;
}
