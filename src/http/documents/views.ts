import type { Collection, Document, DocumentSummary } from '../../core/documents/document.ts';
import type { DocumentList } from '../../core/documents/document-service.ts';
import { html, type HtmlValue, type SafeHtml } from '../html.ts';
import { appPage, brand, userMenu, type PageUser } from '../layout.ts';
import type { DocsViewer } from './actions.ts';

type Seat = { handle: string; displayName: string; role: string; inOrg: boolean; hasSeat: boolean };
type Messages = { notice?: string; error?: string };

const enc = encodeURIComponent;
const when = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/**
 * The documents pages' frame: the chat's top bar, stylesheet and dark theme,
 * no script (the CSP allows none inline, and none is needed).
 */
function layout(
  user: PageUser,
  title: string,
  body: HtmlValue,
  o: Messages & { workspace?: { slug: string; name: string } } = {},
): string {
  const crumbs = html`<nav class="crumbs" aria-label="Where you are"><a href="/docs">Documents</a>${
    o.workspace ? html` › <a href="/docs/${enc(o.workspace.slug)}">${o.workspace.name}</a>` : null
  }</nav>`;
  return appPage({
    title: `${title} · Switchboard`,
    bodyClass: 'docs-page',
    styles: ['/docs-assets/documents.css'],
    topbar: html`${brand}${crumbs}<span class="spacer"></span>${userMenu(user, { chatLink: true })}`,
    body: html`<main id="main" class="docs" tabindex="-1">
${o.error ? html`<p class="notice notice-error" role="alert">${o.error}</p>` : null}${o.notice ? html`<p class="notice notice-info" role="status">${o.notice}</p>` : null}
${body}
</main>`,
  });
}

export function workspacesPage(user: PageUser, list: Array<{ slug: string; name: string; role: string }>): string {
  const items = list.map(
    (w) => html`<li><a href="/docs/${enc(w.slug)}">${w.name}</a> <span class="muted">(${w.role})</span></li>`,
  );
  return layout(
    user,
    'Documents',
    html`<h1>Documents</h1>${items.length ? html`<ul>${items}</ul>` : html`<p>You cannot reach any workspace yet.</p>`}`,
  );
}

const docRow = (ws: string, d: DocumentSummary) => html`<tr>
<td><a href="/docs/${enc(ws)}/d/${enc(d.identifier)}">${d.identifier}</a></td>
<td><strong>${d.title}</strong>${d.summary ? html`<br><span class="muted">${d.summary}</span>` : null}</td>
<td>${d.status}${d.archived ? html` <span class="tag">archived</span>` : null}</td>
<td class="muted">${when(d.updatedAt)}${d.updatedBy ? ` by ${d.updatedBy}` : null}</td></tr>`;

function seatsBox(base: string, csrf: SafeHtml, seats: Seat[]): SafeHtml {
  const rows = seats.map(
    (s) =>
      html`<tr><td>@${s.handle}</td><td>${s.role}</td><td>${
        !s.inOrg
          ? html`<span class="muted">not in the organization</span>`
          : html`<form method="post" action="${base}/seats/${enc(s.handle)}">${csrf}<input type="hidden" name="has_seat" value="${s.hasSeat ? 'false' : 'true'}"><span>${s.hasSeat ? 'has a seat' : 'no seat'}</span> <button type="submit">${s.hasSeat ? 'Revoke' : 'Assign a seat'}</button></form>`
      }</td></tr>`,
  );
  return html`<section class="box" id="seats"><h2>Seats</h2><p class="muted">Writing documents needs a seat in the organization; reading does not.</p><table><tbody>${rows}</tbody></table></section>`;
}

function manageBox(base: string, csrf: SafeHtml, sel: Collection): SafeHtml {
  const action = `${base}/c/${enc(sel.key)}`;
  return html`<section class="box"><h2>Manage "${sel.name}"</h2>
<form method="post" action="${action}" class="row">${csrf}<input name="name" value="${sel.name}" aria-label="Name" required maxlength="80"><button type="submit">Rename</button></form>
<form method="post" action="${action}" class="row">${csrf}<input type="hidden" name="active" value="${sel.active ? 'false' : 'true'}"><button type="submit">${sel.active ? 'Deactivate (agents stop seeing it)' : 'Reactivate'}</button></form>
<form method="post" action="${action}/delete" class="row">${csrf}<button type="submit" class="danger">Delete (only when empty)</button></form>
</section>`;
}

/** A workspace's documents: collections on the side, one collection's list (or search hits), owner and admin forms. */
export function workspacePage(
  user: PageUser,
  v: DocsViewer,
  o: Messages & {
    csrf: SafeHtml;
    collections: Collection[];
    selected: Collection | null;
    list: DocumentList | null;
    hits: DocumentSummary[] | null;
    q?: string;
    status?: string;
    archived: boolean;
    offset: number;
    seats: Seat[] | null;
  },
): string {
  const ws = v.ws.slug;
  const base = `/docs/${enc(ws)}`;
  const structured = v.ws.kind === 'structured';
  const sel = o.selected;
  const nav = structured
    ? html`<nav class="side" aria-label="Collections"><h2>Collections</h2><ul>${
        o.collections.length
          ? o.collections.map(
              (c) =>
                html`<li${c.id === sel?.id ? html` class="current"` : null}><a href="${base}?collection=${enc(c.key)}"${c.id === sel?.id ? html` aria-current="page"` : null}>${c.name}</a>${c.active ? null : html` <span class="tag">deactivated</span>`}</li>`,
            )
          : html`<li class="muted">None yet: an owner's agent opens them with create_collection.</li>`
      }</ul></nav>`
    : null;
  const filters = html`<form method="get" action="${base}" class="row">
${sel && structured ? html`<input type="hidden" name="collection" value="${sel.key}">` : null}
<input name="q" placeholder="Search titles, summaries, identifiers" value="${o.q ?? ''}" aria-label="Search">
${sel ? html`<select name="status" aria-label="Status"><option value="">Any status</option>${sel.statuses.map((s) => html`<option${s === o.status ? html` selected` : null}>${s}</option>`)}</select>` : null}
<label class="checkbox"><input type="checkbox" name="archived" value="1"${o.archived ? html` checked` : null}> archived too</label>
<button type="submit">Show</button></form>`;
  const rows = (o.hits ?? o.list?.items ?? []).map((d) => docRow(ws, d));
  const table = rows.length
    ? html`<table><thead><tr><th>Id</th><th>Title</th><th>Status</th><th>Updated</th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="muted">No documents here.</p>`;
  const next = o.list?.truncated
    ? new URLSearchParams({
        ...(sel ? { collection: sel.key } : {}),
        ...(o.status ? { status: o.status } : {}),
        ...(o.archived ? { archived: '1' } : {}),
        offset: String(o.offset + o.list.items.length),
      })
    : null;
  const more =
    next && o.list
      ? html`<p>Showing ${o.list.items.length} of ${o.list.total}. <a href="${base}?${next.toString()}">Next page</a></p>`
      : null;
  const heading = o.hits
    ? `Search: ${o.q ?? ''}`
    : sel
      ? structured
        ? sel.name
        : 'All documents'
      : 'Choose a collection';
  const body = html`<h1>${v.ws.name} <span class="tag">${v.role}${v.access.hasSeat ? ', seat' : ''}</span></h1>
${v.ws.description ? html`<p>${v.ws.description}</p>` : null}
<div class="cols">${nav}<section class="docs-main"><h2>${heading}</h2>${filters}${table}${more}${sel && structured && v.role === 'owner' ? manageBox(base, o.csrf, sel) : null}${o.seats ? seatsBox(base, o.csrf, o.seats) : null}</section></div>`;
  return layout(user, `${v.ws.name} documents`, body, { ...o, workspace: v.ws });
}

/** One document in full (content shown as text), with the move form for writers. */
export function documentPage(
  user: PageUser,
  v: DocsViewer,
  d: Document,
  o: Messages & { csrf: SafeHtml; collections: Collection[] },
): string {
  const base = `/docs/${enc(v.ws.slug)}`;
  const structured = v.ws.kind === 'structured';
  const here = structured ? o.collections.find((c) => c.id === d.collectionId) : undefined;
  const canMove = structured && v.access.hasSeat && v.role !== 'viewer';
  const others = o.collections.filter((c) => c.id !== d.collectionId);
  const move =
    canMove && others.length
      ? html`<section class="box"><h2>Move to another collection</h2>
<form method="post" action="${base}/d/${enc(d.identifier)}/move" class="row">${o.csrf}
<select name="collection" aria-label="Collection">${others.map((c) => html`<option value="${c.key}">${c.name}</option>`)}</select>
<input name="status" placeholder="Status (optional)" aria-label="Status" maxlength="40">
<button type="submit">Move</button></form>
<p class="muted">The identifier stays. The status is kept when the target collection has it, otherwise its first status is used.</p></section>`
      : null;
  const body = html`<p><a href="${base}${here ? `?collection=${enc(here.key)}` : ''}">← ${here ? here.name : v.ws.name}</a></p>
<h1>${d.identifier} · ${d.title}</h1>
<p><span class="tag">${d.status}</span>${d.archived ? html` <span class="tag">archived</span>` : null} <span class="muted">updated ${when(d.updatedAt)}${d.updatedBy ? ` by ${d.updatedBy}` : null}</span></p>
${d.summary ? html`<p class="summary">${d.summary}</p>` : null}
<pre class="content">${d.content}</pre>
${move}`;
  return layout(user, `${d.identifier} ${d.title}`, body, { ...o, workspace: v.ws });
}

/** A refusal (not found, not permitted) in the same frame. */
export function unavailablePage(user: PageUser, sentence: string): string {
  return layout(
    user,
    'Not available',
    html`<h1>Not available</h1><p>${sentence}</p><p><a href="/docs">Your workspaces</a></p>`,
  );
}
