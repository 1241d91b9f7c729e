// The intake page of a workspace: what people asked for, with filters (status,
// kind, where it came from), counts per source and per status, and each
// item's source messages with links (web ones open in the chat itself); and
// its triage panel, where whoever sees an item changes its status, adds a note
// or merges it into the item it repeats.
import { api, w } from './api.ts';
import { openDialog } from './dialogs.ts';
import { announce, h, isWebUrl, time } from './dom.ts';
import type { IntakeItemView, IntakeView } from './types.ts';

const STATUSES = ['new', 'triaged', 'in progress', 'done', "won't do"] as const;
const KINDS = ['complaint', 'bug', 'feature request', 'question'] as const;
const SOURCES: Record<string, string> = { web: 'Web chat', slack: 'Slack', teams: 'Teams', mcp: 'Agents (MCP)' };

export interface IntakeFilter {
  status: string;
  kind: string;
  surface: string;
}

/** The filter in the page's address (`#/w/<ws>/intake?status=…`). */
export const intakeFilter = (query: URLSearchParams): IntakeFilter => ({
  status: query.get('status') ?? '',
  kind: query.get('kind') ?? '',
  surface: query.get('surface') ?? '',
});

const query = (f: IntakeFilter) => new URLSearchParams(Object.entries(f).filter(([, v]) => v)).toString();

function select(id: string, label: string, value: string, options: Array<[string, string]>) {
  return h(
    'span',
    { class: 'filter' },
    h('label', { for: id }, label),
    h(
      'select',
      { id, name: id.replace('intake-', '') },
      h('option', { value: '' }, 'Any'),
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
    ),
  );
}

/** What a change answers: the item as it is now, and how many people were told it is done. */
type Changed = { item: IntakeItemView; told: number };
const toldLine = (n: number) => (n ? ` ${n === 1 ? 'One person was' : `${n} people were`} told it is done.` : '');

/** The triage panel of one item; `others` are the items it may repeat; `changed` redraws the page after a change. */
function triagePanel(ws: string, i: IntakeItemView, others: IntakeItemView[], changed: (id: string) => Promise<void>) {
  const error = h('p', { class: 'notice notice-error', role: 'alert', hidden: true });
  const send = async (close: () => void, call: () => Promise<Changed>, said: (r: Changed) => string) => {
    try {
      error.hidden = true;
      const r = await call();
      close();
      announce(said(r) + toldLine(r.told));
      await changed(r.item.id);
    } catch (err) {
      error.textContent = (err as Error).message;
      error.hidden = false;
    }
  };
  openDialog(`Triage “${i.title}”`, (close) => {
    const status = h(
      'select',
      { id: 'triage-status', name: 'status' },
      STATUSES.map((s) => h('option', { value: s, selected: s === i.status }, s)),
    );
    const note = h('textarea', { id: 'triage-note', name: 'note', rows: 3, maxlength: 4000 });
    const triage = h(
      'form',
      {
        id: 'triage-form',
        class: 'stack',
        onsubmit: (e: SubmitEvent) => {
          e.preventDefault();
          // Only a status that differs is a change; the same one kept is none.
          const body = { status: status.value === i.status ? '' : status.value, note: note.value };
          void send(
            close,
            () => api<Changed>('PATCH', w(ws, `/intake/${i.id}`), body),
            (r) => (r.item.status !== i.status ? `Status ${i.status} → ${r.item.status}.` : 'Note added.'),
          );
        },
      },
      h('label', { for: 'triage-status' }, 'Status'),
      status,
      h('p', { class: 'hint' }, 'Done tells each person who asked, in the conversation where they asked, once.'),
      h('label', { for: 'triage-note' }, 'Note (optional)'),
      note,
      h('button', { type: 'submit', class: 'primary', id: 'triage-save' }, 'Save'),
    );
    const into = h(
      'select',
      { id: 'merge-into', name: 'into' },
      others.map((o) => h('option', { value: o.id }, `${o.title} (${o.status})`)),
    );
    const merge = others.length
      ? h(
          'form',
          {
            id: 'merge-form',
            class: 'stack',
            onsubmit: (e: SubmitEvent) => {
              e.preventDefault();
              void send(
                close,
                () => api<Changed>('POST', w(ws, `/intake/${i.id}/merge`), { into: into.value }),
                (r) => `Merged into “${r.item.title}”.`,
              );
            },
          },
          h('label', { for: 'merge-into' }, 'It repeats'),
          into,
          h(
            'p',
            { class: 'hint' },
            "Its sources join that item (their authors are told when it is done) and this one becomes won't do.",
          ),
          h('button', { type: 'submit', class: 'secondary', id: 'merge-save' }, 'Merge'),
        )
      : h('p', { class: 'hint' }, 'No other item is listed here to merge it into; clear the filters to see them all.');
    return [
      error,
      triage,
      h('h3', {}, 'A duplicate?'),
      merge,
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', class: 'secondary', id: 'triage-close', onclick: close }, 'Close'),
      ),
    ];
  });
}

function item(ws: string, i: IntakeItemView, triage: () => void): HTMLElement {
  const sources = h(
    'ul',
    { class: 'intake-sources' },
    i.sources.map((s) =>
      h(
        'li',
        {},
        h('span', { class: 'tag via' }, s.where),
        ' ',
        h('strong', {}, s.author),
        ': ',
        h('span', { class: 'excerpt' }, s.excerpt),
        ' ',
        s.href && (s.external ? isWebUrl(s.href) : s.href.startsWith('#'))
          ? h(
              'a',
              {
                href: s.href,
                ...(s.external ? { target: '_blank', rel: 'noopener noreferrer' } : {}),
                class: 'source-link',
              },
              s.external ? `Open in ${s.where}` : 'Open in the chat',
            )
          : null,
        s.notified ? h('span', { class: 'hint' }, ' (told it is done)') : null,
      ),
    ),
  );
  return h(
    'li',
    { class: 'intake-item', dataset: { id: i.id, status: i.status } },
    h(
      'div',
      { class: 'meta' },
      h('strong', { class: 'intake-title' }, i.title),
      ' ',
      h('span', { class: 'tag' }, i.kind),
      ' ',
      h('span', { class: `tag intake-status` }, i.status),
      i.filedAutomatically ? h('span', { class: 'hint' }, ' filed automatically') : null,
      ' ',
      // Its own address, to share (pasted into Slack or Teams, it is previewed there).
      h(
        'a',
        { class: 'permalink', href: `#/w/${encodeURIComponent(ws)}/intake/${i.id}`, title: 'Link to this item' },
        time(i.createdAt),
      ),
    ),
    i.summary ? h('p', { class: 'excerpt' }, i.summary) : null,
    sources,
    i.notes.length
      ? h(
          'ul',
          { class: 'intake-notes', 'aria-label': 'Notes' },
          i.notes.map((n) =>
            h(
              'li',
              {},
              h('span', { class: 'tag' }, 'note'),
              ' ',
              h('strong', {}, n.author),
              ': ',
              n.body,
              ' ',
              time(n.at),
            ),
          ),
        )
      : null,
    h(
      'button',
      { type: 'button', class: 'secondary intake-triage', 'aria-label': `Triage “${i.title}”`, onclick: triage },
      'Triage',
    ),
  );
}

/** The page for a filter; `go` changes the address (which draws the page again). */
export async function intakeView(ws: string, f: IntakeFilter, go: (path: string) => void): Promise<HTMLElement> {
  const q = query(f);
  const data = await api<IntakeView>('GET', w(ws, `/intake${q ? `?${q}` : ''}`));
  const c = data.counts;
  const counts = h(
    'div',
    { class: 'intake-counts' },
    h(
      'p',
      { id: 'intake-by-source' },
      h('strong', {}, 'By source: '),
      Object.keys(c.bySource).length
        ? Object.entries(c.bySource)
            .map(([k, n]) => `${SOURCES[k] ?? k} ${n}`)
            .join(' · ')
        : 'none yet',
    ),
    h(
      'p',
      { id: 'intake-by-status' },
      h('strong', {}, 'By status: '),
      STATUSES.filter((s) => c.byStatus[s])
        .map((s) => `${s} ${c.byStatus[s]}`)
        .join(' · ') || 'none yet',
    ),
  );
  const form = h(
    'form',
    { id: 'intake-filters', class: 'filters', role: 'search', 'aria-label': 'Filter intake' },
    select(
      'intake-status',
      'Status',
      f.status,
      STATUSES.map((s) => [s, s]),
    ),
    select(
      'intake-kind',
      'Kind',
      f.kind,
      KINDS.map((k) => [k, k]),
    ),
    select('intake-surface', 'Source', f.surface, Object.entries(SOURCES)),
  );
  // Choosing a filter changes the address, so the filtered page can be linked and the back button works.
  form.addEventListener('change', () => {
    const values = Object.fromEntries(new FormData(form)) as unknown as IntakeFilter;
    const next = query(values);
    go(`/intake${next ? `?${next}` : ''}`);
  });
  form.addEventListener('submit', (e) => e.preventDefault());
  // After a change the page is drawn again in place (the address is the same), focus back on the item's button.
  const redraw = async (id: string) => {
    const next = await intakeView(ws, f, go);
    page.replaceWith(next);
    next.querySelector<HTMLElement>(`.intake-item[data-id="${id}"] .intake-triage`)?.focus();
  };
  const page = h(
    'div',
    { class: 'page intake-page' },
    h('h1', { id: 'page-title', tabindex: '-1' }, 'Intake'),
    h(
      'p',
      { class: 'hint' },
      `What people asked for (${c.total} in all you can see), filed by agents or from requests of people without a linked account.`,
    ),
    counts,
    form,
    data.items.length
      ? h(
          'ol',
          { id: 'intake-list', class: 'list', 'aria-label': 'Intake items' },
          data.items.map((i) =>
            item(ws, i, () =>
              triagePanel(
                ws,
                i,
                data.items.filter((o) => o.id !== i.id),
                redraw,
              ),
            ),
          ),
        )
      : h(
          'p',
          { class: 'empty', id: 'intake-empty' },
          q ? 'No item matches these filters.' : 'Nothing filed yet. Agents file what they hear with file_intake.',
        ),
  );
  return page;
}
