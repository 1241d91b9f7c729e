// Reading Switchboard links back into what they name, as a chat app hands them
// over: only links to one item on this Switchboard's own address count.
import { describe, expect, it } from 'vitest';
import { conversationLink, itemLink, parseLink } from '../../../src/core/previews/links.ts';

const BASE = 'https://sb.acme.test';
const ID = '3f2b8c1e-0a4d-4e5f-9a6b-7c8d9e0f1a2b';
const THREAD = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

describe('Switchboard links', () => {
  it('names an approval, an intake item, a conversation (a thread by its own id) and a document', () => {
    expect(parseLink(`${BASE}/#/w/eng/approvals/${ID}`, BASE)).toEqual({
      url: `${BASE}/#/w/eng/approvals/${ID}`,
      workspace: 'eng',
      kind: 'approval',
      id: ID,
    });
    expect(parseLink(`${BASE}/#/w/eng/intake/${ID}`, BASE)).toMatchObject({ kind: 'intake', id: ID });
    expect(parseLink(`${BASE}/#/w/eng/c/${ID}`, BASE)).toMatchObject({ kind: 'conversation', id: ID });
    expect(parseLink(`${BASE}/#/w/eng/c/${ID}/t/${THREAD}`, BASE)).toMatchObject({ kind: 'conversation', id: THREAD });
    expect(parseLink(`${BASE}/docs/eng/d/SPEC-12`, BASE)).toMatchObject({
      workspace: 'eng',
      kind: 'document',
      id: 'SPEC-12',
    });
    expect(parseLink(`${BASE}/docs/my%20ws/d/SPEC-12`, BASE)).toBeNull();
  });

  it('reads the links it writes, under a PUBLIC_URL with a path too', () => {
    for (const base of [BASE, `${BASE}/switchboard`]) {
      const ws = { slug: 'eng' };
      for (const kind of ['approval', 'intake', 'document'] as const) {
        const id = kind === 'document' ? 'RUN-3' : ID;
        expect(parseLink(itemLink(base, ws, kind, id), base)).toMatchObject({ kind, id });
      }
      const thread = conversationLink(base, ws, { id: THREAD, kind: 'thread', parentId: ID });
      expect(thread).toBe(`${base}/#/w/eng/c/${ID}/t/${THREAD}`);
      expect(parseLink(thread, base)).toMatchObject({ kind: 'conversation', id: THREAD });
    }
    expect(parseLink(`${BASE}/#/w/eng/approvals/${ID}`, `${BASE}/switchboard`)).toBeNull();
  });

  it('names nothing for another host, another scheme, a page that is not one item, or an id that is none', () => {
    for (const url of [
      `https://elsewhere.test/#/w/eng/approvals/${ID}`,
      `https://sb.acme.test:8443/#/w/eng/approvals/${ID}`,
      `ftp://sb.acme.test/#/w/eng/approvals/${ID}`,
      `${BASE}/#/w/eng/intake`,
      `${BASE}/#/w/eng/inbox`,
      `${BASE}/#/w/eng/approvals/not-an-id`,
      `${BASE}/#/w/eng/c/${ID}/x/${THREAD}`,
      `${BASE}/other/#/w/eng/approvals/${ID}`,
      `${BASE}/docs/eng`,
      `${BASE}/#/w/%E0%A4%A/approvals/${ID}`,
      'not a url',
    ])
      expect(parseLink(url, BASE), url).toBeNull();
  });
});
