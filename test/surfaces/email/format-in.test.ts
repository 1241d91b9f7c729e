// A reply by email reaches agents as its new text in Markdown: the history
// Gmail, Outlook, Apple Mail and Thunderbird put below it and the signature
// left out, inline replies and forwards kept whole, and the whole mail kept for
// the record. The bodies are written as those programs write them.
import { describe, expect, it } from 'vitest';
import { mailToMarkdown } from '../../../src/surfaces/email/format/in.ts';

const ALICE = 'Alice Example &lt;alice@example.com&gt;';

describe('reading an HTML reply', () => {
  it("keeps Gmail's new text without its signature or quote, and the whole mail for the record", () => {
    const html =
      '<div dir="ltr">Friday at 10 works for me <img data-emoji="👍" class="an1" alt="👍" aria-label="👍" src="https://fonts.gstatic.com/s/e/notoemoji/15.1/1f44d/32.png">.' +
      '<div>I&#39;ll bring the <b>draft</b> — see <a href="https://docs.example.com/plan">the plan</a>.</div><div><br clear="all"></div><div><br></div>' +
      '<span class="gmail_signature_prefix">-- </span><br><div dir="ltr" class="gmail_signature" data-smartmail="gmail_signature"><div dir="ltr">Bob Builder<div>Acme Corp | +1 555 0100</div></div></div></div><br>' +
      '<div class="gmail_quote gmail_quote_container"><div dir="ltr" class="gmail_attr">On Mon, Jan 6, 2025 at 10:00 AM Alice Example &lt;<a href="mailto:alice@example.com">alice@example.com</a>&gt; wrote:<br></div>' +
      '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex"><div dir="ltr">Can we meet on Friday?<div><br></div><div>Alice</div></div></blockquote></div>';
    const read = mailToMarkdown({ html, text: 'Friday at 10 works for me 👍.' });
    expect(read.markdown).toBe(
      "Friday at 10 works for me 👍.\n\nI'll bring the **draft** — see [the plan](https://docs.example.com/plan).",
    );
    expect(read.full).toContain('Bob Builder');
    expect(read.full).toContain('> Can we meet on Friday?');
  });

  it('cuts everything from the header of an Outlook reply, keeping a data table', () => {
    const html =
      '<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style><!--\np.MsoNormal {margin:0in;font-size:11.0pt;}\n--></style>' +
      '<!--[if gte mso 9]><xml><o:shapedefaults spidmax="1026" /></xml><![endif]--></head><body lang="EN-US" style="word-wrap:break-word"><div class="WordSection1">' +
      '<p class="MsoNormal">Hi Alice,<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Friday is fine. The numbers:<o:p></o:p></p>' +
      '<table class="MsoTableGrid" border="1" cellspacing="0" cellpadding="0"><tr><td><p class="MsoNormal">Q1<o:p></o:p></p></td><td><p class="MsoNormal">12<o:p></o:p></p></td></tr>' +
      '<tr><td><p class="MsoNormal">Q2<o:p></o:p></p></td><td><p class="MsoNormal">15<o:p></o:p></p></td></tr></table>' +
      '<p class="MsoNormal"><o:p>&nbsp;</o:p></p><p class="MsoNormal">Bob<o:p></o:p></p><p class="MsoNormal"><o:p>&nbsp;</o:p></p>' +
      `<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0in 0in 0in"><p class="MsoNormal"><b>From:</b> ${ALICE}<br><b>Sent:</b> Monday, January 6, 2025 10:00 AM<br>` +
      '<b>To:</b> Bob Builder &lt;bob@example.com&gt;<br><b>Subject:</b> Meeting<o:p></o:p></p></div><p class="MsoNormal"><o:p>&nbsp;</o:p></p>' +
      '<p class="MsoNormal">Can we meet on Friday?<o:p></o:p></p></div></body></html>';
    const read = mailToMarkdown({ html });
    expect(read.markdown).toBe(
      'Hi Alice,\n\nFriday is fine. The numbers:\n\n| Q1 | 12 |\n| -- | -- |\n| Q2 | 15 |\n\nBob',
    );
    expect(read.full).toContain('**Sent:** Monday, January 6, 2025 10:00 AM');
    expect(read.full).toContain('Can we meet on Friday?');
  });

  it("cuts Outlook on the web's rule, header and history, and its signature", () => {
    const html =
      '<html><head><style type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr">' +
      '<div class="elementToProof" style="font-family: Aptos, sans-serif; font-size: 12pt;">Sounds good, thanks!</div>' +
      '<div id="Signature"><div>Bob Builder</div><div>Acme Corp</div></div><div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">' +
      `<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" color="#000000"><b>From:</b> ${ALICE}<br><b>Sent:</b> Monday, January 6, 2025 10:00<br>` +
      '<b>To:</b> Bob Builder &lt;bob@example.com&gt;<br><b>Subject:</b> Meeting</font><div>&nbsp;</div></div><div><div dir="ltr">Can we meet on Friday?</div></div></body></html>';
    expect(mailToMarkdown({ html }).markdown).toBe('Sounds good, thanks!');
  });

  it("leaves out Outlook mobile's footer", () => {
    const html =
      '<div dir="auto">On my way.</div><div dir="auto"><br></div><div id="ms-outlook-mobile-signature" dir="auto">Get <a href="https://aka.ms/o0ukef">Outlook for iOS</a></div>' +
      `<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif"><b>From:</b> ${ALICE}<br><b>Sent:</b> Monday, January 6, 2025 10:00:00 AM<br>` +
      '<b>To:</b> Bob<br><b>Subject:</b> Meeting</font><div>&nbsp;</div></div><div>Where are you?</div>';
    expect(mailToMarkdown({ html }).markdown).toBe('On my way.');
  });

  it('keeps a forward Outlook sends with the header of a reply', () => {
    const html =
      `<div>Can you pay this?</div><hr><div id="divRplyFwdMsg"><b>From:</b> Carol &lt;carol@example.org&gt;<br><b>Sent:</b> Monday, January 6, 2025 9:00 AM<br>` +
      '<b>To:</b> Bob<br><b>Subject:</b> FW: Invoice 42</div><div>Please pay invoice 42.</div>';
    expect(mailToMarkdown({ html }).markdown).toBe(
      'Can you pay this?\n\n---\n\n**From:** Carol \\<carol\\@example.org>\n**Sent:** Monday, January 6, 2025 9:00 AM\n' +
        '**To:** Bob\n**Subject:** FW: Invoice 42\n\nPlease pay invoice 42.',
    );
  });

  it("cuts an iPhone's attribution and quote and its Sent from line", () => {
    const html =
      '<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head><body dir="auto"><div dir="ltr">Sounds good, see you then.</div>' +
      '<div dir="ltr"><br id="lineBreakAtBeginningOfSignature"><div dir="ltr">Sent from my iPhone</div><div dir="ltr"><br>' +
      `<blockquote type="cite">On Jan 6, 2025, at 10:00, ${ALICE} wrote:<br><br></blockquote></div>` +
      '<blockquote type="cite"><div dir="ltr">\ufeff<div>Can we meet on Friday?</div></div></blockquote></div></body></html>';
    expect(mailToMarkdown({ html }).markdown).toBe('Sounds good, see you then.');
  });

  it('cuts the quote of Apple Mail on a Mac', () => {
    const html =
      '<html><head></head><body style="overflow-wrap: break-word;"><div>Sounds good.</div><div><br></div><div>Bob</div><div><br>' +
      `<blockquote type="cite"><div>On 6 Jan 2025, at 10:00, ${ALICE} wrote:</div><br class="Apple-interchange-newline">` +
      '<div><div>Can we meet on Friday?</div></div></blockquote></div><br></body></html>';
    expect(mailToMarkdown({ html }).markdown).toBe('Sounds good.\n\nBob');
  });

  it("cuts Thunderbird's signature, attribution and quote", () => {
    const html =
      '<!DOCTYPE html>\n<html>\n  <head>\n    <meta http-equiv="Content-Type" content="text/html; charset=UTF-8">\n  </head>\n  <body>\n    <p>Friday works.</p>\n' +
      '    <pre class="moz-signature" cols="72">-- \nBob Builder</pre>\n    <div class="moz-cite-prefix">On 06/01/2025 10:00, Alice Example wrote:<br>\n    </div>\n' +
      '    <blockquote type="cite" cite="mid:1234@example.com">\n      <p>Can we meet on Friday?</p>\n    </blockquote>\n  </body>\n</html>';
    expect(mailToMarkdown({ html }).markdown).toBe('Friday works.');
  });

  it('keeps the quotes an inline reply answers, and cuts the one after the last answer', () => {
    const html =
      '<div>Answers below.</div><blockquote type="cite">Can we meet on Friday?</blockquote><div>Yes, at 10.</div>' +
      '<blockquote type="cite">Should I book a room?</blockquote><div>Please do.</div><blockquote type="cite">Alice</blockquote>';
    expect(mailToMarkdown({ html }).markdown).toBe(
      'Answers below.\n\n> Can we meet on Friday?\n\nYes, at 10.\n\n> Should I book a room?\n\nPlease do.',
    );
  });

  it('cuts from a "-- " line written by hand, but not from dashes inside a sentence', () => {
    expect(mailToMarkdown({ html: '<div>Thanks!</div><div>-- </div><div>Bob</div>' }).markdown).toBe('Thanks!');
    expect(mailToMarkdown({ html: '<p><b>yes</b> -- <i>no</i></p>' }).markdown).toBe('**yes** -- _no_');
  });

  it('reads formatting as Markdown, leaves out scripts, pictures and unsafe links, and reads layout tables as lines', () => {
    const html =
      '<div>Steps:<ol><li>build</li><li>ship <code>v2</code></li></ol><script>alert(1)</script><img src="cid:logo">' +
      '<a href="javascript:x()">bad</a></div><table><tr><td><img src="https://x.example/logo.png"></td></tr>' +
      '<tr><td><div>Bob Builder</div><div>CEO</div></td></tr></table>';
    expect(mailToMarkdown({ html }).markdown).toBe('Steps:\n\n1. build\n2. ship `v2`\n\nbad\n\nBob Builder\n\nCEO');
  });

  it('reads the plain text when the HTML has no words', () => {
    expect(mailToMarkdown({ html: '<img src="cid:scan">', text: 'See the scan.' })).toEqual({
      markdown: 'See the scan.',
      full: 'See the scan.',
    });
  });

  it('reads a huge HTML mail in bounded time, its new text first', () => {
    const history =
      '<p class="MsoNormal">Earlier words, <b>bold</b> and <a href="https://e.example/">a link</a>.</p>'.repeat(8000);
    const html = `<p>New words.</p><div style="border:none;border-top:solid #E1E1E1 1.0pt"><p><b>From:</b> A<br><b>Sent:</b> today</p></div>${history}`;
    const started = performance.now();
    const read = mailToMarkdown({ html });
    expect(read.markdown).toBe('New words.');
    expect(read.full.length).toBeLessThan(100_000);
    // Generous: at most 100 KB is read, even on a loaded machine.
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});

describe('reading a plain-text reply', () => {
  const read = (text: string) => mailToMarkdown({ text, html: false }).markdown;

  it("cuts Gmail's signature and its attribution wrapped over two lines", () => {
    const text =
      'Friday at 10 works for me.\n\n-- \nBob Builder\nAcme Corp\n\n' +
      'On Mon, Jan 6, 2025 at 10:00 AM Alice Example <alice@example.com>\nwrote:\n\n> Can we meet on Friday?\n>\n> Alice\n';
    expect(read(text)).toBe('Friday at 10 works for me.');
    expect(mailToMarkdown({ text }).full).toContain('> Can we meet on Friday?');
  });

  it("cuts Outlook's header block with its rule, in CRLF text", () => {
    const text =
      'Friday is fine.\r\n\r\nBob\r\n\r\n________________________________\r\nFrom: Alice Example <alice@example.com>\r\n' +
      'Sent: Monday, January 6, 2025 10:00 AM\r\nTo: Bob Builder <bob@example.com>\r\nSubject: Meeting\r\n\r\nCan we meet on Friday?\r\n';
    expect(read(text)).toBe('Friday is fine.\n\nBob');
  });

  it('cuts at -----Original Message-----', () => {
    const text =
      'Friday is fine.\n\n-----Original Message-----\nFrom: Alice Example [mailto:alice@example.com] \n' +
      'Sent: Monday, January 06, 2025 10:00 AM\nTo: Bob Builder\nSubject: Meeting\n\nCan we meet on Friday?\n';
    expect(read(text)).toBe('Friday is fine.');
  });

  it("cuts an iPhone's quoted attribution and its Sent from line", () => {
    const text =
      'Sounds good, see you then.\n\nSent from my iPhone\n\n> On Jan 6, 2025, at 10:00, Alice Example <alice@example.com> wrote:\n> \n> Can we meet on Friday?\n';
    expect(read(text)).toBe('Sounds good, see you then.');
  });

  it.each([
    [
      'German',
      'Passt.\n\nAm Mo., 6. Jan. 2025 um 10:00 Uhr schrieb Alice Example <alice@example.com>:\n> Freitag?\n',
      'Passt.',
    ],
    [
      'French',
      'Ça marche.\n\nLe lun. 6 janv. 2025 à 10:00, Alice <alice@example.com> a écrit :\n> Vendredi ?\n',
      'Ça marche.',
    ],
    [
      'Spanish',
      'Vale.\n\nEl lun, 6 ene 2025 a las 10:00, Alice (<alice@example.com>) escribió:\n> ¿El viernes?\n',
      'Vale.',
    ],
  ])('cuts a %s attribution', (_language, text, expected) => {
    expect(read(text)).toBe(expected);
  });

  it("keeps a bottom-posted reply (Thunderbird's option) with what it answers, without the signature", () => {
    const text =
      'On 06/01/2025 10:00, Alice Example wrote:\n> Can we meet on Friday?\n\nFriday works.\n\n-- \nBob Builder\n';
    expect(read(text)).toBe('On 06/01/2025 10:00, Alice Example wrote:\n> Can we meet on Friday?\n\nFriday works.');
  });

  it('keeps an inline reply whole', () => {
    const text = 'Answers below.\n\n> Can we meet on Friday?\n\nYes, at 10.\n\n> Should I book a room?\n\nPlease do.\n';
    expect(read(text)).toBe(text.trim());
  });

  it('keeps words that only look like an attribution', () => {
    const text = "On Monday Bob wrote: the plan is fine, so let's go.\n\nThanks";
    expect(read(text)).toBe(text);
  });

  it('keeps a forwarded message, Gmail or Outlook', () => {
    const gmail =
      'Can you look at this?\n\n---------- Forwarded message ---------\nFrom: Carol <carol@example.org>\n' +
      'Date: Mon, Jan 6, 2025 at 9:00 AM\nSubject: Invoice 42\nTo: Bob Builder <bob@example.com>\n\nPlease pay invoice 42.';
    const outlook =
      'FYI\n\n________________________________\nFrom: Carol <carol@example.org>\nSent: Monday, January 6, 2025 9:00 AM\n' +
      'To: Bob Builder <bob@example.com>\nSubject: FW: Invoice 42\n\nPlease pay invoice 42.';
    expect(read(gmail)).toBe(gmail);
    expect(read(outlook)).toBe(outlook);
  });

  it('gives no new text for a mail that only quotes, and keeps it for the record', () => {
    expect(mailToMarkdown({ text: '> Can we meet?\n' })).toEqual({ markdown: '', full: '> Can we meet?' });
  });

  it('keeps plain text as it was written', () => {
    expect(read('plain *text*\n- one\n- two')).toBe('plain *text*\n- one\n- two');
  });
});
