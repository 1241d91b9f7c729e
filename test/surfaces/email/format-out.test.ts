// What an agent writes goes out as a mail's two parts: its Markdown as plain
// text with readable link addresses, and HTML where nothing it writes becomes
// markup of its own.
import { describe, expect, it } from 'vitest';
import { mailToMarkdown } from '../../../src/surfaces/email/format/in.ts';
import { markdownToMail } from '../../../src/surfaces/email/format/out.ts';

describe('Markdown to mail', () => {
  it('writes links as words and address in the plain text, leaving the rest as written', () => {
    const { text } = markdownToMail(
      'Hi **Bob**, see [the _plan_](https://docs.example.com/plan "Plan"), <https://x.example/a>, www.example.com ' +
        'or <bob@example.com>.\n\n![chart](https://img.example/c.png)\n\n- `[not](a link)`\n- [ref][r]\n\n[r]: https://ref.example\n',
    );
    expect(text).toBe(
      'Hi **Bob**, see the _plan_ (https://docs.example.com/plan), https://x.example/a, www.example.com ' +
        'or bob@example.com.\n\nchart (https://img.example/c.png)\n\n- `[not](a link)`\n- [ref][r]\n\n[r]: https://ref.example',
    );
  });

  it('keeps only the words of a link that is not a web or mail address', () => {
    expect(markdownToMail('[click](javascript:alert(1)) [me](data:text/html,x)').text).toBe('click me');
  });

  it('renders the HTML part as formatted text', () => {
    const { html } = markdownToMail('## Plan\n\n1. build\n2. ship `v2`\n\n> quoted\n\n| a | b |\n| - | - |\n| 1 | 2 |');
    expect(html).toContain('<h2>Plan</h2>');
    expect(html).toContain('<li>ship <code>v2</code></li>');
    expect(html).toContain('<blockquote>');
    expect(html).toContain('<td>1</td>');
  });

  it("shows the agent's raw HTML as text and links only web and mail addresses", () => {
    const { html } = markdownToMail(
      '<script>alert(1)</script> <img src=x onerror="alert(1)"> <a href="https://evil.example">x</a>\n\n' +
        '[click](javascript:alert(1)) [site](https://example.com) ![pic](https://img.example/p.png)',
    );
    expect(html).not.toMatch(/<(script|img|a href="https:\/\/evil)/);
    expect(html).toContain('&#x3C;script>');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('<a href="https://example.com"');
    // A picture is a link to it: loading it would tell its owner who read the mail.
    expect(html).toContain('<a href="https://img.example/p.png"');
  });

  it('reads back as the Markdown it was made from', () => {
    const markdown =
      'Hi **Bob**, see [the plan](https://docs.example.com/plan).\n\n- one\n- two `code`\n\n> a quote\n\n```\nif (a < b) {}\n```';
    expect(mailToMarkdown(markdownToMail(markdown)).markdown).toBe(markdown);
  });
});
