// Mail a program sent, or that came through a list, is never answered: each
// sign RFC 3834 and common mail servers give is read from the headers as
// mailparser parses them, and a person's reply is not taken for one.
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { automaticMailReason } from '../../../src/surfaces/email/automatic.ts';

/** A raw message with CRLF line ends, as it arrives over SMTP. */
const raw = (headers: string, body = 'Hello.') =>
  `${headers.trim()}\nDate: Mon, 06 Jan 2025 10:00:00 +0000\nMessage-ID: <${Math.random()}@example.org>\n\n${body}\n`.replace(
    /\r?\n/g,
    '\r\n',
  );
const reason = async (message: string, envelopeFrom: string | null = 'alice@example.org') =>
  automaticMailReason((await simpleParser(message)).headers, envelopeFrom);

const PERSON = 'From: Alice Example <alice@example.org>\nTo: agent@switchboard.example\nSubject: Re: Plan';

describe('automatic mail', () => {
  it("is not what a person's reply is, even one that says Auto-Submitted: no", async () => {
    expect(await reason(raw(`${PERSON}\nIn-Reply-To: <1@switchboard.example>`))).toBeNull();
    expect(await reason(raw(`${PERSON}\nAuto-Submitted: no`))).toBeNull();
    expect(await reason(raw(`${PERSON}\nX-Auto-Response-Suppress: RN, NRN`))).toBeNull();
  });

  it('is an Exchange out-of-office reply', async () => {
    const message = raw(
      'From: Alice Example <alice@example.org>\nTo: agent@switchboard.example\nSubject: Automatic reply: Plan\n' +
        'Auto-Submitted: auto-generated\nX-Auto-Response-Suppress: All\nX-MS-Exchange-Inbox-Rules-Loop: alice@example.org',
      'I am out of the office until Monday.',
    );
    expect(await reason(message)).toBe('It was sent automatically (Auto-Submitted: auto-generated).');
  });

  it('is a vacation reply with parameters on Auto-Submitted, or one that only says X-Autoreply', async () => {
    expect(await reason(raw(`${PERSON}\nAuto-Submitted: auto-replied; owner-email="alice@example.org"`))).toBe(
      'It was sent automatically (Auto-Submitted: auto-replied).',
    );
    expect(await reason(raw(`${PERSON}\nX-Autoreply: yes`))).toBe('It was sent automatically (X-Autoreply: yes).');
  });

  it('is mail whose sender asks for no automatic answer', async () => {
    expect(await reason(raw(`${PERSON}\nX-Auto-Response-Suppress: OOF, AutoReply`))).toBe(
      'Its sender asks for no automatic answer (X-Auto-Response-Suppress: OOF, AutoReply).',
    );
  });

  it('is a bounce: a delivery report from the mailer daemon with a null return path', async () => {
    const message = raw(
      'Return-Path: <>\nFrom: Mail Delivery Subsystem <MAILER-DAEMON@mx.example.org>\nTo: agent@switchboard.example\n' +
        'Subject: Undelivered Mail Returned to Sender\nMIME-Version: 1.0\n' +
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
      '--b1\nContent-Type: text/plain\n\nYour message could not be delivered.\n' +
        '--b1\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example.org\n\n' +
        'Final-Recipient: rfc822; nobody@example.org\nAction: failed\nStatus: 5.1.1\n--b1--',
    );
    expect(await reason(message, '')).toBe(
      'It has a null return path (<>), which only bounces and other automatic notices have.',
    );
    // Without the envelope, the Return-Path the delivery added says the same.
    expect(await reason(message, null)).toMatch(/null return path/);
    // And with a return path (some servers give bounces one), the report itself.
    expect(await reason(message, 'bounces@mx.example.org')).toBe(
      'It is an automatic report (multipart/report; report-type=delivery-status), such as a bounce or a read receipt.',
    );
  });

  it('is a read receipt', async () => {
    const message = raw(
      `${PERSON}\nMIME-Version: 1.0\nContent-Type: multipart/report; report-type=disposition-notification; boundary="r"`,
      '--r\nContent-Type: text/plain\n\nYour message was read.\n--r--',
    );
    expect(await reason(message)).toMatch(/report-type=disposition-notification/);
  });

  it('is list mail, by its List-* headers or its Precedence', async () => {
    const group = raw(
      'From: Alice Example <alice@example.org>\nTo: team@groups.example.org\nSubject: Lunch?\n' +
        'List-Id: <team.groups.example.org>\nList-Post: <mailto:team@groups.example.org>\n' +
        'List-Unsubscribe: <mailto:team+unsubscribe@groups.example.org>,\n <https://groups.example.org/u/team>',
    );
    expect(await reason(group)).toBe('It came through a mailing list (it has a List-Id header).');
    expect(await reason(raw(`${PERSON}\nList-Unsubscribe: <https://news.example.org/u?id=1>`))).toBe(
      'It came through a mailing list (it has a List-Unsubscribe header).',
    );
    expect(await reason(raw(`${PERSON}\nPrecedence: Bulk`))).toBe('It is bulk or list mail (Precedence: bulk).');
    expect(await reason(raw(`${PERSON}\nPrecedence: junk`))).toMatch(/Precedence: junk/);
  });

  it('is a bounce that only names its failed recipients', async () => {
    expect(await reason(raw(`${PERSON}\nX-Failed-Recipients: bob@example.org`))).toMatch(/X-Failed-Recipients/);
  });

  it("comes from a program's address: a mail daemon, postmaster, list manager or no-reply sender", async () => {
    for (const from of ['postmaster@example.org', 'owner-team@lists.example.org', 'team-request@lists.example.org']) {
      expect(await reason(raw(`From: ${from}\nTo: agent@switchboard.example\nSubject: x`))).toBe(
        `It comes from ${from}, a program's address that reads no answers.`,
      );
    }
    expect(await reason(raw(`From: "Shop" <no-reply@shop.example>\nTo: a@b.example\nSubject: Order`))).toMatch(
      /no-reply@shop\.example/,
    );
    expect(await reason(raw(PERSON), 'bounce+abc123@mailer.example.org')).toMatch(/bounce\+abc123@/);
  });

  it('reads headers given as plain strings as well', () => {
    const headers = new Map<string, unknown>([
      ['from', 'Alice <alice@example.org>'],
      ['content-type', 'multipart/report; report-type="delivery-status"; boundary=x'],
    ]);
    expect(automaticMailReason(headers, 'x@example.org')).toMatch(/report-type=delivery-status/);
    expect(automaticMailReason(new Map([['list-id', '<a.example>']]), null)).toMatch(/List-Id/);
    expect(automaticMailReason(new Map([['from', 'MAILER-DAEMON@example.org']]), null)).toMatch(/MAILER-DAEMON/);
  });
});
