// A channel's settings: the header lines (who listens, what it is bridged
// with), kept in step with the store, and the panel where owners change both.
// Also the person's own settings page (done notices).
import { api, w } from './api.ts';
import { field, openDialog } from './dialogs.ts';
import { announce, fragment, h } from './dom.ts';
import { store } from './store.ts';
import type { ChannelSettingsView } from './types.ts';

const settingsPath = (ws: string, channelId: string) => w(ws, `/channels/${channelId}/settings`);

/** "listening: @alice/reviewer, @bob/triage"; empty when no agent listens. */
export const listeningLine = (s: Pick<ChannelSettingsView, 'listeners'>) =>
  s.listeners.length ? `listening: ${s.listeners.map((l) => `@${l.agent}`).join(', ')}` : '';

/** "Bridged with Slack #eng-chat: everyone there reads this channel."; empty when not bridged. */
export const bridgesLine = (bridges: Array<{ label?: string; surface: string; title: string }>) =>
  bridges.length
    ? `Bridged with ${bridges.map((b) => `${b.label ?? b.surface} ${b.title}`).join(' and ')}: everyone there reads this channel.`
    : '';

/** The header's two lines, filled from the store's settings once they arrive. */
export function channelNotes(bridges: Array<{ surface: string; title: string }>): HTMLElement[] {
  const line = (id: string, text: string) => h('p', { id, class: 'conv-desc conv-note', hidden: !text }, text);
  return [line('conv-listening', ''), line('conv-bridges', bridgesLine(bridges))];
}

function renderNotes(s: ChannelSettingsView) {
  for (const [id, text] of [
    ['conv-listening', listeningLine(s)],
    ['conv-bridges', bridgesLine(s.bridges)],
  ] as const) {
    const el = document.getElementById(id);
    if (!el) continue;
    el.textContent = text;
    el.hidden = !text;
  }
}

/** Keeps the open channel's header in step with its settings in the store. */
export function mountChannelNotes(): void {
  store.subscribe((state, changed) => {
    if (!changed.has('channelSettings') && !changed.has('main')) return;
    const s = state.channelSettings;
    if (s && state.main?.conversation.id === s.channel.id) renderNotes(s);
  });
}

/** Loads the settings of the channel open in the main column (or clears them); runs again when they change elsewhere. */
export async function loadChannelSettings(ws: string): Promise<void> {
  const main = store.state.main;
  if (!main?.conversation.channel) {
    if (store.state.channelSettings) store.update({ channelSettings: null });
    return;
  }
  const s = await api<ChannelSettingsView>('GET', settingsPath(ws, main.conversation.id));
  if (store.state.main?.conversation.id === s.channel.id) store.update({ channelSettings: s });
}

/** The settings panel of a channel: listeners and bridges, with changes for owners. */
export function channelSettingsDialog(ws: string): void {
  const s = store.state.channelSettings;
  if (!s) return;
  const base = `/channels/${s.channel.id}`;
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const body = h('div', { class: 'settings-panel' });
  // Every change answers with the new settings; the panel redraws from the store.
  const change = async (method: 'POST' | 'DELETE', path: string, payload?: unknown, said?: string) => {
    try {
      error.hidden = true;
      const r = await api<{ settings: ChannelSettingsView }>(method, w(ws, base + path), payload);
      store.update({ channelSettings: r.settings });
      draw(r.settings);
      if (said) announce(said);
    } catch (err) {
      error.textContent = (err as Error).message;
      error.hidden = false;
    }
  };
  const draw = (cur: ChannelSettingsView) => {
    const who = cur.listeners.length
      ? h(
          'ul',
          { id: 'listener-list', class: 'settings-list' },
          cur.listeners.map((l) =>
            h(
              'li',
              {},
              h('span', {}, h('strong', {}, l.displayName), ' ', h('span', { class: 'handle' }, `@${l.agent}`)),
              cur.canManage
                ? h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      id: `unlisten-${l.agentId}`,
                      'aria-label': `Stop ${l.agent} listening`,
                      onclick: () =>
                        change('DELETE', `/listeners/${l.agentId}`, undefined, `${l.agent} no longer listens.`),
                    },
                    'Remove',
                  )
                : null,
            ),
          ),
        )
      : h(
          'p',
          { class: 'hint' },
          'No agent listens to this channel. A listening agent gets every message written here, and answers only when mentioned.',
        );
    const addListener =
      cur.canManage && cur.candidates.length
        ? h(
            'form',
            {
              id: 'listen-form',
              class: 'inline-form',
              onsubmit: (e: SubmitEvent) => {
                e.preventDefault();
                const agent = (e.currentTarget as HTMLFormElement).querySelector('select')!.value;
                void change('POST', '/listeners', { agent }, `${agent} now listens.`);
              },
            },
            h('label', { for: 'listen-agent' }, 'Let an agent listen'),
            h(
              'select',
              { id: 'listen-agent', name: 'agent' },
              cur.candidates.map((a) => h('option', { value: a.name }, `${a.displayName} (${a.name})`)),
            ),
            h('button', { type: 'submit', class: 'primary', id: 'listen-add' }, 'Add'),
          )
        : null;

    const bridges = cur.bridges.length
      ? h(
          'ul',
          { id: 'bridge-list', class: 'settings-list' },
          cur.bridges.map((b) =>
            h(
              'li',
              {},
              h(
                'span',
                {},
                `${b.label} ${b.title || b.externalChannelId}`,
                b.externalChannelId && b.title ? h('span', { class: 'handle' }, ` (${b.externalChannelId})`) : null,
                b.allowPrivate ? h('span', { class: 'tag' }, 'private allowed') : null,
              ),
              cur.canManage && b.id
                ? h(
                    'button',
                    {
                      type: 'button',
                      class: 'secondary',
                      id: `unbridge-${b.id}`,
                      'aria-label': `Remove the bridge to ${b.label} ${b.title || b.externalChannelId}`,
                      onclick: () => change('DELETE', `/bridges/${b.id}`, undefined, 'Bridge removed.'),
                    },
                    'Remove',
                  )
                : null,
            ),
          ),
        )
      : h('p', { class: 'hint' }, 'Not bridged: only people in the web chat read this channel.');
    const examples = cur.bridgeTo.map((t) => `${t.label}: ${t.example}`).join('; ');
    const addBridge =
      cur.canManage && !cur.bridgeTo.length
        ? h('p', { class: 'hint' }, 'No chat app is configured to bridge with.')
        : cur.canManage
          ? h(
              'form',
              {
                id: 'bridge-form',
                class: 'stack',
                onsubmit: (e: SubmitEvent) => {
                  e.preventDefault();
                  const f = e.currentTarget as HTMLFormElement;
                  const value = (name: string) => f.elements.namedItem(name) as HTMLInputElement;
                  void change(
                    'POST',
                    '/bridges',
                    {
                      surface: value('bridge-surface').value,
                      channel: value('bridge-channel').value,
                      allowPrivate: value('bridge-private')?.checked ?? false,
                    },
                    'Bridged.',
                  );
                },
              },
              h('label', { for: 'bridge-surface' }, 'Bridge with'),
              h(
                'select',
                { id: 'bridge-surface', name: 'bridge-surface' },
                cur.bridgeTo.map((t) => h('option', { value: t.surface }, t.label)),
              ),
              ...field(
                'bridge-channel',
                'Outside channel id',
                { required: true, autocomplete: 'off', placeholder: cur.bridgeTo[0].example },
                `The channel's id in that app (${examples}). Invite the app there first.`,
              ),
              cur.channel.restricted
                ? h(
                    'label',
                    { class: 'checkbox' },
                    h('input', { type: 'checkbox', id: 'bridge-private', name: 'bridge-private' }),
                    "Allow this restricted channel's messages into the outside channel",
                  )
                : null,
              h('button', { type: 'submit', class: 'primary', id: 'bridge-add' }, 'Bridge'),
            )
          : null;

    body.replaceChildren(
      fragment(
        h('h3', {}, 'Listening agents'),
        who,
        addListener,
        h('h3', {}, 'Bridges'),
        bridges,
        addBridge,
        cur.canManage
          ? null
          : h('p', { class: 'hint' }, 'Only owners of this workspace choose listening agents and bridges.'),
      ),
    );
  };
  draw(s);
  openDialog(`Settings of #${s.channel.name}`, (close) => [
    error,
    body,
    h(
      'div',
      { class: 'buttons' },
      h(
        'button',
        { type: 'button', class: 'secondary', id: 'settings-close', onclick: close, autofocus: true },
        'Close',
      ),
    ),
  ]);
}

/** The person's own settings: whether they are told when something they asked for is done. */
export async function personalSettingsView(): Promise<HTMLElement> {
  const { on } = await api<{ on: boolean }>('GET', '/me/notices');
  const box = h('input', { type: 'checkbox', id: 'notices-toggle', checked: on });
  const status = h('p', { class: 'hint', role: 'status', id: 'notices-status' });
  box.addEventListener('change', async () => {
    try {
      const r = await api<{ on: boolean }>('POST', '/me/notices', { on: box.checked });
      box.checked = r.on;
      status.textContent = r.on
        ? 'You will be told when something you asked for is done.'
        : 'You will not be told when something you asked for is done.';
    } catch (err) {
      box.checked = !box.checked;
      status.textContent = (err as Error).message;
    }
  });
  return h(
    'div',
    { class: 'page' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Your settings'),
    h('h2', {}, 'Done notices'),
    h('label', { class: 'checkbox' }, box, 'Tell me, in the thread where I asked, when something I asked for is done'),
    h(
      'p',
      { class: 'hint' },
      'The same choice as the “notices off” and “notices on” commands in a chat app: it applies wherever you asked.',
    ),
    status,
  );
}
