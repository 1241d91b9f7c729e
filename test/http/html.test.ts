import { describe, expect, it } from 'vitest';
import { html, SafeHtml, trustedHtml } from '../../src/http/html.ts';
import { cardPage } from '../../src/http/layout.ts';

const hostile = `"><script>alert('x')</script>&amp;`;

describe('the html template', () => {
  it('escapes every interpolated value by default, in text and in attributes', () => {
    const out = html`<p title="${hostile}">${hostile}</p>`.toString();
    expect(out).toBe(
      '<p title="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;">&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;amp;</p>',
    );
    expect(out).not.toContain('<script');
  });

  it('escapes strings inside lists and numbers as text, and renders nothing for null, undefined and booleans', () => {
    const out =
      html`<ul>${['<a>', 1, null, undefined, false, true].map((v) => html`<li>${v}</li>`)}</ul>${['<b>']}`.toString();
    expect(out).toBe('<ul><li>&lt;a&gt;</li><li>1</li><li></li><li></li><li></li><li></li></ul>&lt;b&gt;');
  });

  it('keeps nested templates as markup without escaping them twice', () => {
    const inner = html`<em>${'a & b'}</em>`;
    expect(html`<p>${inner}</p>`.toString()).toBe('<p><em>a &amp; b</em></p>');
  });

  it('passes markup through only when it is deliberately marked trusted', () => {
    expect(html`${'<b>x</b>'}`.toString()).toBe('&lt;b&gt;x&lt;/b&gt;');
    const trusted = trustedHtml('<b>x</b>');
    expect(trusted).toBeInstanceOf(SafeHtml);
    expect(html`${trusted}`.toString()).toBe('<b>x</b>');
    // A look-alike object is not markup: it is turned into text and escaped.
    expect(html`${{ toString: () => '<b>x</b>' } as unknown as string}`.toString()).toBe('&lt;b&gt;x&lt;/b&gt;');
  });
});

describe('the page layout', () => {
  it('escapes the title and keeps the body as given', () => {
    const page = cardPage('<Sign in>', html`<form>${'<i>'}</form>`);
    expect(page).toContain('<title>&lt;Sign in&gt; · Switchboard</title>');
    expect(page).toContain('<h1 id="page-title">&lt;Sign in&gt;</h1>');
    expect(page).toContain('<form>&lt;i&gt;</form>');
    expect(page).toContain('<link rel="stylesheet" href="/assets/app.css">');
  });
});
