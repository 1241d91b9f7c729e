// What an agent is doing in a conversation on screen: a status line ("Helper
// is thinking…") and the message it is writing, growing as it streams. Both sit
// at the end of the message list and go away when the agent clears its status
// or the finished message arrives (with the stream's id).
import { avatar, h } from './dom.ts';
import type { OpenConversation } from './store.ts';
import type { LiveActivity } from './types.ts';

const statusId = (agentId: string) => `live-status-${agentId}`;
export const streamItemId = (streamId: string) => `live-stream-${streamId}`;

const nearBottom = (el: HTMLElement) => el.scrollHeight - el.scrollTop - el.clientHeight < 120;

/** Shows, updates or removes an agent's status line and streamed draft in an open conversation. */
export function showLive(open: OpenConversation, e: LiveActivity): void {
  const list = open.list;
  const stick = nearBottom(list);
  const find = (id: string) => list.querySelector<HTMLElement>(`#${CSS.escape(id)}`);
  const status = find(statusId(e.agent_id));
  if (e.status) {
    const line = h(
      'li',
      { class: 'live live-status', id: statusId(e.agent_id), role: 'status' },
      `${e.display_name} ${e.status}`,
    );
    if (status) status.replaceWith(line);
    else list.append(line);
  } else {
    status?.remove();
  }
  if (e.stream) {
    const item = find(streamItemId(e.stream.id));
    // Finished: the stored message replaces the draft (it carries the stream's id), or nothing does if it was refused.
    if (e.stream.done || open.messages.has(e.stream.id)) item?.remove();
    else {
      const draft = h(
        'li',
        { class: 'message live live-stream', id: streamItemId(e.stream.id), 'aria-busy': 'true' },
        avatar({ id: e.agent_id, displayName: e.display_name }),
        h(
          'div',
          {},
          h(
            'div',
            { class: 'meta' },
            h('span', { class: 'sender' }, e.display_name),
            h('span', { class: 'tag' }, 'writing…'),
          ),
          // Plain text while it is written: the stored message is rendered from Markdown when it arrives.
          h('div', { class: 'body live-text' }, `${e.stream.truncated ? '…' : ''}${e.stream.text}`),
        ),
      );
      if (item) item.replaceWith(draft);
      else list.append(draft);
    }
  }
  if (stick) list.scrollTop = list.scrollHeight;
}
