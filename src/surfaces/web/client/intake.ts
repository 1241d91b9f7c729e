// The intake page of a workspace: what people asked for, with filters (status,
// kind, where it came from), counts per source and per status, and each
// item's source messages with links (web ones open in the chat itself).
import { api, w } from './api.ts';
import { h, isWebUrl, time } from './dom.ts';
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

function item(i: IntakeItemView): HTMLElement {
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
      time(i.createdAt),
    ),
    i.summary ? h('p', { class: 'excerpt' }, i.summary) : null,
    sources,
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
  return h(
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
      ? h('ol', { id: 'intake-list', class: 'list', 'aria-label': 'Intake items' }, data.items.map(item))
      : h(
          'p',
          { class: 'empty', id: 'intake-empty' },
          q ? 'No item matches these filters.' : 'Nothing filed yet. Agents file what they hear with file_intake.',
        ),
  );
}
