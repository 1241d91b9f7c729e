import { api, w } from './api.ts';
import { dialogForm, field, openDialog } from './dialogs.ts';
import { avatar, h } from './dom.ts';
import type { AgentInfo, AgentsList, TokenResult } from './types.ts';

/** What the agents page needs from the app. */
export interface AgentsContext {
  ws: string;
  me: { handle: string };
  openDm: (agentId: string) => Promise<void>;
  refresh: () => void;
}

const ago = (iso: string) => {
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 90) return 'a minute ago';
  if (s < 3600) return `${Math.round(s / 60)} minutes ago`;
  if (s < 86400) return `${Math.round(s / 3600)} hours ago`;
  return `${Math.round(s / 86400)} days ago`;
};

/** Copies to the clipboard; says on the button whether it worked. */
async function copy(text: string, button: HTMLButtonElement): Promise<boolean> {
  let done = true;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Select and copy it by hand';
    done = false;
  }
  setTimeout(() => {
    button.textContent = 'Copy';
  }, 2000);
  return done;
}

function copyBlock(label: string, text: string, onCopied: () => void = () => {}) {
  const pre = h('pre', { tabindex: '0', 'aria-label': label }, text);
  const button: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'secondary',
      onclick: async () => {
        if (await copy(text, button)) onCopied();
      },
    },
    'Copy',
  );
  return h('div', { class: 'token-box' }, h('div', { class: 'section-head' }, h('strong', {}, label), button), pre);
}

/** The token, shown this once, with configurations for common MCP clients in tabs. */
export function tokenDialog(result: TokenResult, title: string): void {
  // Closing before the token was copied (a Copy button, or copying selected text) asks first: it cannot be shown again.
  let copied = false;
  const copiedNow = () => {
    copied = true;
    warning.hidden = true;
  };
  const warning = h('div', { class: 'notice notice-error close-warning', role: 'alert', hidden: true });
  let closeNow = () => {};
  const askToClose = () => {
    if (copied) {
      closeNow();
      return;
    }
    const back = h(
      'button',
      {
        type: 'button',
        class: 'primary',
        onclick: () => {
          warning.hidden = true;
          tokenBox.querySelector('button')?.focus();
        },
      },
      'Go back and copy it',
    );
    warning.replaceChildren(
      h(
        'p',
        {},
        'You have not copied the token yet. Once this closes it cannot be shown again; you would have to rotate it.',
      ),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', class: 'secondary', onclick: () => closeNow() }, 'Close without it'),
        back,
      ),
    );
    warning.hidden = false;
    back.focus();
  };
  const tokenBox = copyBlock('Token', result.token, copiedNow);
  closeNow = openDialog(
    title,
    () => {
      const clients = result.config.clients;
      const panel = h('div', { role: 'tabpanel', id: 'client-panel', tabindex: '0' });
      const tabs = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'MCP client' });
      const tabButtons: HTMLButtonElement[] = [];
      const select = (i: number) => {
        tabButtons.forEach((t, j) => {
          t.setAttribute('aria-selected', String(i === j));
          t.tabIndex = i === j ? 0 : -1;
        });
        panel.setAttribute('aria-labelledby', `client-tab-${i}`);
        panel.replaceChildren(
          h('p', { class: 'hint' }, clients[i].where),
          copyBlock(clients[i].name, clients[i].text, copiedNow),
        );
      };
      clients.forEach((c, i) =>
        tabButtons.push(
          h(
            'button',
            {
              type: 'button',
              role: 'tab',
              id: `client-tab-${i}`,
              'aria-controls': 'client-panel',
              onclick: () => select(i),
              onkeydown: (e: KeyboardEvent) => {
                if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
                const next = (i + (e.key === 'ArrowRight' ? 1 : clients.length - 1)) % clients.length;
                select(next);
                tabButtons[next].focus();
              },
            },
            c.name,
          ),
        ),
      );
      tabs.append(...tabButtons);
      select(0);
      return [
        h(
          'p',
          { class: 'notice notice-info', role: 'status' },
          `This is ${result.agent.displayName}'s token. Copy it now: it is shown only once. Anyone holding it can act as the agent.`,
        ),
        tokenBox,
        copyBlock('MCP server URL', result.config.url),
        copyBlock('Header', result.config.header, copiedNow),
        h('h3', {}, 'Ready-to-paste configuration'),
        tabs,
        panel,
        warning,
        h(
          'div',
          { class: 'buttons' },
          h('button', { type: 'button', class: 'primary', onclick: askToClose, autofocus: true }, 'I saved the token'),
        ),
      ];
    },
    {
      onEscape: askToClose,
      // Copying by hand (select, then Ctrl+C) counts when what was copied holds the token.
      onCopy: () => {
        if (String(document.getSelection()).includes(result.token)) copiedNow();
      },
    },
  );
}

function agentCard(ctx: AgentsContext, a: AgentInfo) {
  const presence = a.connected
    ? h('span', { class: 'presence on' }, 'Connected now')
    : h('span', { class: 'presence' }, a.lastSeenAt ? `Last seen ${ago(a.lastSeenAt)}` : 'Not connected yet');
  const buttons = h(
    'div',
    { class: 'row' },
    h('button', { type: 'button', class: 'secondary', onclick: () => ctx.openDm(a.id) }, 'Message'),
  );
  if (a.mine && !a.tokenHeld) {
    buttons.append(
      h(
        'button',
        {
          type: 'button',
          class: 'secondary danger',
          onclick: async () => {
            if (
              !confirm(
                `Rotate ${a.name}'s token? The current one stops working at once; connected clients must be given the new one.`,
              )
            )
              return;
            try {
              tokenDialog(
                await api<TokenResult>('POST', w(ctx.ws, `/agents/${a.id}/rotate-token`)),
                `New token for ${a.displayName}`,
              );
            } catch (e) {
              alert((e as Error).message);
            }
          },
        },
        'Rotate token',
      ),
    );
  }
  return h(
    'li',
    { class: 'agent-card' },
    h(
      'div',
      { class: 'who' },
      avatar({ id: a.id, displayName: a.displayName, avatarUrl: a.avatarUrl }),
      h('div', {}, h('h3', {}, a.displayName), h('span', { class: 'handle' }, a.name)),
    ),
    a.roleLine ? h('p', { class: 'role' }, a.roleLine) : null,
    h('p', { class: 'hint' }, `Owner: ${a.owner.displayName} (@${a.owner.handle})`),
    a.mine && a.tokenHeld ? h('p', { class: 'hint token-held' }, a.tokenHeld) : null,
    presence,
    buttons,
  );
}

function createAgentDialog(ctx: AgentsContext) {
  openDialog('Create an agent', (close) =>
    dialogForm(
      [
        ...field(
          'name',
          'Name',
          {
            required: true,
            autofocus: true,
            maxlength: 39,
            pattern: '[a-z0-9][a-z0-9_.\\-]*',
            autocomplete: 'off',
            autocapitalize: 'none',
          },
          'Lowercase letters, digits, dots, dashes. People mention it as @name.',
        ),
        ...field('displayName', 'Display name', { maxlength: 80 }),
        ...field('roleLine', 'Role (one line)', { maxlength: 140 }, 'What it does, e.g. "Reviews pull requests".'),
        ...field('avatarUrl', 'Avatar URL (optional)', { type: 'url', maxlength: 500, placeholder: 'https://…' }),
      ],
      'Create agent',
      async (v) => {
        const r = await api<TokenResult>('POST', w(ctx.ws, '/agents'), v);
        close();
        tokenDialog(r, `${r.agent.displayName} is ready`);
        ctx.refresh();
      },
      close,
    ),
  );
}

/** The agents page: who is here and connected, people to message, creating an agent. */
export async function agentsView(ctx: AgentsContext): Promise<HTMLElement> {
  const data = await api<AgentsList>('GET', w(ctx.ws, '/agents'));
  const cards = h(
    'ul',
    { class: 'cards list', 'aria-label': 'Agents' },
    data.agents.map((a) => agentCard(ctx, a)),
  );
  const people = h(
    'ul',
    { class: 'list', 'aria-label': 'People' },
    data.people
      .filter((p) => p.handle !== ctx.me.handle)
      .map((p) =>
        h(
          'li',
          { class: 'list-item two-col' },
          h(
            'span',
            {},
            h('strong', {}, p.displayName),
            ' ',
            h('span', { class: 'handle' }, `@${p.handle} · ${p.role}`),
          ),
          h('button', { type: 'button', class: 'secondary', onclick: () => ctx.openDm(p.id) }, 'Message'),
        ),
      ),
  );
  const elsewhere = data.elsewhere.length
    ? [
        h('h2', {}, 'Your agents in other workspaces'),
        h(
          'ul',
          { class: 'list' },
          data.elsewhere.map((a) =>
            h(
              'li',
              { class: 'list-item two-col' },
              h('span', {}, h('strong', {}, a.displayName), ' ', h('span', { class: 'handle' }, a.name)),
              h(
                'button',
                {
                  type: 'button',
                  class: 'secondary',
                  onclick: async () => {
                    await api('POST', w(ctx.ws, `/agents/${a.id}/join`));
                    ctx.refresh();
                  },
                },
                'Add to this workspace',
              ),
            ),
          ),
        ),
      ]
    : [];
  return h(
    'div',
    { class: 'page' },
    h(
      'div',
      { class: 'section-head' },
      h('h1', { id: 'page-title', tabindex: '-1' }, 'Agents'),
      h('button', { type: 'button', class: 'primary', onclick: () => createAgentDialog(ctx) }, 'Create an agent'),
    ),
    h(
      'p',
      { class: 'hint' },
      `Agents connect over MCP at ${data.mcpUrl} with their own token. Mention one in a channel with @name, or message it directly.`,
    ),
    data.agents.length
      ? cards
      : h('p', { class: 'empty' }, 'No agents here yet. Create one and connect it from your MCP client.'),
    h('h2', {}, 'People'),
    people.childElementCount ? people : h('p', { class: 'empty' }, 'Nobody else is here yet.'),
    ...elsewhere,
  );
}
