// The mail stand-ins are only worth having if the real libraries accept them.
// The SMTP sink takes what nodemailer's SMTP transport delivers, plain, over
// STARTTLS with a password, and through the failures it is told to give; the
// DNS stand-in publishes keys and records that mailauth's own checks accept
// for mail nodemailer signed.
import { authenticate } from 'mailauth';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { dkimKey, dnsStub } from '../support/email/dkim.ts';
import { type SmtpSink, startSmtpSink } from '../support/email/smtp-sink.ts';

let sink: SmtpSink | undefined;
afterEach(async () => {
  await sink?.close();
  sink = undefined;
});

const mail = {
  from: 'Agent <agent@switchboard.example>',
  to: 'Alice Example <alice@example.org>',
  cc: 'bob@example.org',
  subject: 'Re: Plan',
  text: 'Friday works.',
  html: '<p>Friday works.</p>',
};

describe('the SMTP sink', () => {
  it('keeps what nodemailer delivers: envelope, raw message and parsed mail', async () => {
    sink = await startSmtpSink();
    const transport = nodemailer.createTransport(sink.url);
    const info = await transport.sendMail({
      ...mail,
      envelope: { from: 'bounces@switchboard.example', to: ['alice@example.org', 'bob@example.org'] },
    });
    expect(info.accepted).toEqual(['alice@example.org', 'bob@example.org']);
    const [message] = await sink.waitFor(1);
    expect(message.envelope).toEqual({
      from: 'bounces@switchboard.example',
      to: ['alice@example.org', 'bob@example.org'],
    });
    expect(message.raw.toString()).toContain('Subject: Re: Plan');
    expect(message.parsed.subject).toBe('Re: Plan');
    expect(message.parsed.text?.trim()).toBe('Friday works.');
    expect(message.parsed.messageId).toBe(info.messageId);
  });

  it('refuses the next deliveries as told, with the code a client reads', async () => {
    sink = await startSmtpSink();
    const transport = nodemailer.createTransport(sink.url);
    sink.failNext(451, 'Try again later');
    sink.failNext(550, 'No such user here');
    await expect(transport.sendMail(mail)).rejects.toMatchObject({ responseCode: 451 });
    await expect(transport.sendMail(mail)).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('No such user'),
    });
    await transport.sendMail(mail);
    expect(await sink.waitFor(1)).toHaveLength(1);
  });

  it('keeps the null return path of a bounce as an empty sender', async () => {
    sink = await startSmtpSink();
    await nodemailer.createTransport(sink.url).sendMail({ ...mail, envelope: { from: '', to: 'alice@example.org' } });
    expect((await sink.waitFor(1))[0].envelope.from).toBe('');
  });

  it('takes mail over STARTTLS with a password, and refuses a wrong one', async () => {
    sink = await startSmtpSink({ starttls: true, auth: { user: 'agent', pass: 'secret' } });
    const over = (pass: string) =>
      nodemailer.createTransport({
        host: '127.0.0.1',
        port: sink!.port,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        auth: { user: 'agent', pass },
      });
    await expect(over('wrong').sendMail(mail)).rejects.toMatchObject({ responseCode: 535 });
    await over('secret').sendMail(mail);
    expect(await sink.waitFor(1)).toHaveLength(1);
  });

  it('says how many messages came when fewer than waited for do', async () => {
    sink = await startSmtpSink();
    await expect(sink.waitFor(1, 50)).rejects.toThrow('The SMTP sink received 0 of the 1 messages waited for.');
  });
});

describe('the DKIM key and DNS stand-in', () => {
  it("publish what mailauth needs to pass mail nodemailer signed and sent from the domain's server", async () => {
    sink = await startSmtpSink();
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sink.port,
      dkim: { domainName: 'example.org', keySelector: 'mail', privateKey: dkimKey().privateKey },
    });
    await transport.sendMail({ ...mail, from: 'Alice Example <alice@example.org>', to: 'agent@switchboard.example' });
    const [message] = await sink.waitFor(1);
    const resolver = dnsStub([{ domain: 'example.org', selector: 'mail', spfIp: '127.0.0.1' }]);
    const result = await authenticate(message.raw, {
      ip: '127.0.0.1',
      helo: 'mail.example.org',
      sender: message.envelope.from,
      mta: 'mx.switchboard.example',
      resolver,
      disableArc: true,
      disableBimi: true,
    });
    expect(result.dkim.results.map((r) => [r.signingDomain, r.status.result])).toEqual([['example.org', 'pass']]);
    expect(result.spf && result.spf.status.result).toBe('pass');
    expect(result.dmarc && result.dmarc.status.result).toBe('pass');
  });
});
