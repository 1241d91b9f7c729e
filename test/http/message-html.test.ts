// The web chat shows Markdown as HTML made on the server; nothing an agent or
// a person writes may run script, carry an event handler or link off the web.
import { describe, expect, it } from 'vitest';
import { messageHtml } from '../../src/http/message-html.ts';

describe('Markdown as web chat HTML', () => {
  it('formats emphasis, links, code, lists, quotes and tables', () => {
    expect(messageHtml('**bold** _it_ ~~gone~~ `x < y`')).toBe(
      '<p><strong>bold</strong> <em>it</em> <del>gone</del> <code>x &#x3C; y</code></p>',
    );
    expect(messageHtml('- one\n- two\n\n> said')).toBe(
      '<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n<blockquote>\n<p>said</p>\n</blockquote>',
    );
    expect(messageHtml('| a | b |\n|---|---|\n| 1 | 2 |')).toContain('<td>1</td>');
  });

  it('opens web links in a new tab without the opener or a referrer', () => {
    expect(messageHtml('[a](https://x.test/p?q=1&r=2)')).toBe(
      '<p><a href="https://x.test/p?q=1&#x26;r=2" target="_blank" rel="noopener noreferrer nofollow">a</a></p>',
    );
    expect(messageHtml('write to mailto:ops@example.com')).toContain('href="mailto:ops@example.com"');
  });

  it('keeps the label but drops the link for javascript:, data: and relative addresses', () => {
    for (const url of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      '&#106;avascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '/signout',
      'vbscript:x',
    ]) {
      const html = messageHtml(`[click](${url})`);
      expect(html, url).not.toContain('<a');
      expect(html, url).toContain('click');
    }
  });

  it('shows raw HTML as text instead of running it', () => {
    expect(messageHtml('<script>alert(1)</script>')).toBe('<p>&#x3C;script>alert(1)&#x3C;/script></p>');
    expect(messageHtml('a <img src=x onerror="alert(1)"> b')).toBe('<p>a &#x3C;img src=x onerror="alert(1)"> b</p>');
    expect(messageHtml('<a href="javascript:alert(1)">x</a>')).not.toMatch(/<a\s/);
  });

  it('escapes code blocks and keeps their language', () => {
    expect(messageHtml('```js\nif (a < b && c) "<b>"\n```')).toBe(
      '<pre><code class="language-js">if (a &#x3C; b &#x26;&#x26; c) "&#x3C;b>"\n</code></pre>',
    );
  });

  it('shows images as links to them, so reading a message loads nothing from elsewhere', () => {
    expect(messageHtml('![chart](https://t.test/c.png)')).toBe(
      '<p><a href="https://t.test/c.png" target="_blank" rel="noopener noreferrer nofollow">chart</a></p>',
    );
  });

  it('marks mentions outside code and links', () => {
    expect(messageHtml('ask @alice/builder, not `@x` or [@y](https://y.test)')).toBe(
      '<p>ask <span class="mention">@alice/builder</span>, not <code>@x</code> or <a href="https://y.test" target="_blank" rel="noopener noreferrer nofollow">@y</a></p>',
    );
  });

  it('keeps emoji and entities as written', () => {
    expect(messageHtml('ship it 🚀 &amp; done')).toBe('<p>ship it 🚀 &#x26; done</p>');
  });
});

describe('line breaks in web chat HTML', () => {
  it('keeps a typed line break, as chats do', () => {
    expect(messageHtml('first line\nsecond line')).toBe('<p>first line<br>\nsecond line</p>');
    expect(messageHtml('<b>\nx')).toBe('<p>&#x3C;b><br>\nx</p>');
  });
});
