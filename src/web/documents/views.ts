import type { Collection, Document, DocumentSummary } from '../../domain/documents/types.ts';
import type { DocumentList } from '../../domain/documents/document-service.ts';
import { escapeHtml as h } from '../auth/index.ts';
import type { DocsViewer } from './actions.ts';

type Seat = { handle: string; displayName: string; role: string; inOrg: boolean; hasSeat: boolean };

const enc = encodeURIComponent;
const when = (d: Date) => d.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** The page frame: its own stylesheet, no script (the CSP allows none inline, and none is needed). */
export function layout(title: string, body: string, o: { notice?: string; error?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)} · Switchboard</title>
<link rel="stylesheet" href="/docs-assets/documents.css">
</head>
<body>
<header class="top"><a href="/">Switchboard</a> › <a href="/docs">Documents</a></header>
<main>
${o.error ? `<p class="notice error" role="alert">${h(o.error)}</p>` : ''}${o.notice ? `<p class="notice" role="status">${h(o.notice)}</p>` : ''}
${body}
</main>
</body>
</html>`;
}

export function workspacesPage(list: Array<{ slug: string; name: string; role: string }>): string {
  const items = list.map((w) => `<li><a href="/docs/${enc(w.slug)}">${h(w.name)}</a> <span class="muted">(${h(w.role)})</span></li>`).join('');
  return layout('Documents', `<h1>Documents</h1>${items ? `<ul>${items}</ul>` : '<p>You cannot reach any workspace yet.</p>'}`);
}

const docRow = (ws: string, d: DocumentSummary) => `<tr>
<td><a href="/docs/${enc(ws)}/d/${enc(d.identifier)}">${h(d.identifier)}</a></td>
<td><strong>${h(d.title)}</strong>${d.summary ? `<br><span class="muted">${h(d.summary)}</span>` : ''}</td>
<td>${h(d.status)}${d.archived ? ' <span class="tag">archived</span>' : ''}</td>
<td class="muted">${when(d.updatedAt)}${d.updatedBy ? ` by ${h(d.updatedBy)}` : ''}</td></tr>`;

/** A workspace's documents: collections on the side, one collection's list (or search hits), owner and admin forms. */
export function workspacePage(v: DocsViewer, o: {
  csrf: string; collections: Collection[]; selected: Collection | null; list: DocumentList | null; hits: DocumentSummary[] | null;
  q?: string; status?: string; archived: boolean; offset: number; seats: Seat[] | null; notice?: string; error?: string;
}): string {
  const ws = v.ws.slug;
  const base = `/docs/${enc(ws)}`;
  const nav = v.ws.kind === 'structured'
    ? `<nav class="side"><h2>Collections</h2><ul>${o.collections.map((c) => `<li${c.id === o.selected?.id ? ' class="current"' : ''}><a href="${base}?collection=${enc(c.key)}">${h(c.name)}</a>${c.active ? '' : ' <span class="tag">deactivated</span>'}</li>`).join('') || '<li class="muted">None yet: an owner\'s agent opens them with create_collection.</li>'}</ul></nav>`
    : '';
  const sel = o.selected;
  const filters = `<form method="get" action="${base}" class="row">
${sel && v.ws.kind === 'structured' ? `<input type="hidden" name="collection" value="${h(sel.key)}">` : ''}
<input name="q" placeholder="Search titles, summaries, identifiers" value="${h(o.q ?? '')}" aria-label="Search">
${sel ? `<select name="status" aria-label="Status"><option value="">Any status</option>${sel.statuses.map((s) => `<option${s === o.status ? ' selected' : ''}>${h(s)}</option>`).join('')}</select>` : ''}
<label><input type="checkbox" name="archived" value="1"${o.archived ? ' checked' : ''}> archived too</label>
<button type="submit">Show</button></form>`;
  const rows = (o.hits ?? o.list?.items ?? []).map((d) => docRow(ws, d)).join('');
  const table = rows ? `<table><thead><tr><th>Id</th><th>Title</th><th>Status</th><th>Updated</th></tr></thead><tbody>${rows}</tbody></table>` : '<p class="muted">No documents here.</p>';
  const more = o.list?.truncated
    ? `<p>Showing ${o.list.items.length} of ${o.list.total}. <a href="${base}?${new URLSearchParams({ ...(sel ? { collection: sel.key } : {}), ...(o.status ? { status: o.status } : {}), ...(o.archived ? { archived: '1' } : {}), offset: String(o.offset + o.list.items.length) })}">Next page</a></p>` : '';
  const heading = o.hits ? `Search: ${h(o.q ?? '')}` : sel ? (v.ws.kind === 'structured' ? h(sel.name) : 'All documents') : 'Choose a collection';
  const manage = sel && v.ws.kind === 'structured' && v.role === 'owner' ? `<section class="box"><h2>Manage "${h(sel.name)}"</h2>
<form method="post" action="${base}/c/${enc(sel.key)}" class="row">${o.csrf}<input name="name" value="${h(sel.name)}" aria-label="Name" required maxlength="80"><button type="submit">Rename</button></form>
<form method="post" action="${base}/c/${enc(sel.key)}" class="row">${o.csrf}<input type="hidden" name="active" value="${sel.active ? 'false' : 'true'}"><button type="submit">${sel.active ? 'Deactivate (agents stop seeing it)' : 'Reactivate'}</button></form>
<form method="post" action="${base}/c/${enc(sel.key)}/delete" class="row">${o.csrf}<button type="submit" class="danger">Delete (only when empty)</button></form>
</section>` : '';
  const seats = o.seats ? `<section class="box" id="seats"><h2>Seats</h2><p class="muted">Writing documents needs a seat in the organization; reading does not.</p><table><tbody>${o.seats.map((s) => `<tr><td>@${h(s.handle)}</td><td>${h(s.role)}</td><td>${!s.inOrg ? '<span class="muted">not in the organization</span>'
    : `<form method="post" action="${base}/seats/${enc(s.handle)}">${o.csrf}<input type="hidden" name="has_seat" value="${s.hasSeat ? 'false' : 'true'}"><span>${s.hasSeat ? 'has a seat' : 'no seat'}</span> <button type="submit">${s.hasSeat ? 'Revoke' : 'Assign a seat'}</button></form>`}</td></tr>`).join('')}</tbody></table></section>` : '';
  const body = `<h1>${h(v.ws.name)} <span class="tag">${h(v.role)}${v.access.hasSeat ? ', seat' : ''}</span></h1>
${v.ws.description ? `<p>${h(v.ws.description)}</p>` : ''}
<div class="cols">${nav}<section class="main"><h2>${heading}</h2>${filters}${table}${more}${manage}${seats}</section></div>`;
  return layout(`${v.ws.name} documents`, body, o);
}

/** One document in full (content shown as text), with the move form for writers. */
export function documentPage(v: DocsViewer, d: Document, o: { csrf: string; collections: Collection[]; notice?: string; error?: string }): string {
  const base = `/docs/${enc(v.ws.slug)}`;
  const here = o.collections.find((c) => c.id === d.collectionId);
  const canMove = v.ws.kind === 'structured' && v.access.hasSeat && v.role !== 'viewer';
  const others = o.collections.filter((c) => c.id !== d.collectionId);
  const move = canMove && others.length ? `<section class="box"><h2>Move to another collection</h2>
<form method="post" action="${base}/d/${enc(d.identifier)}/move" class="row">${o.csrf}
<select name="collection" aria-label="Collection">${others.map((c) => `<option value="${h(c.key)}">${h(c.name)}</option>`).join('')}</select>
<input name="status" placeholder="Status (optional)" aria-label="Status" maxlength="40">
<button type="submit">Move</button></form>
<p class="muted">The identifier stays. The status is kept when the target collection has it, otherwise its first status is used.</p></section>` : '';
  const body = `<p><a href="${base}${here && v.ws.kind === 'structured' ? `?collection=${enc(here.key)}` : ''}">← ${h(here && v.ws.kind === 'structured' ? here.name : v.ws.name)}</a></p>
<h1>${h(d.identifier)} · ${h(d.title)}</h1>
<p><span class="tag">${h(d.status)}</span>${d.archived ? ' <span class="tag">archived</span>' : ''} <span class="muted">updated ${when(d.updatedAt)}${d.updatedBy ? ` by ${h(d.updatedBy)}` : ''}</span></p>
${d.summary ? `<p class="summary">${h(d.summary)}</p>` : ''}
<pre class="content">${h(d.content)}</pre>
${move}`;
  return layout(`${d.identifier} ${d.title}`, body, o);
}
