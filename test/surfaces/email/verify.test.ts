// A mail's From address counts as its sender only when the From domain vouches
// for it: a DKIM signature of that domain that passes, or SPF passing for it.
// Messages are signed as a sending domain signs them and checked by mailauth
// against a DNS stand-in publishing the keys and records.
import { describe, expect, it, vi } from 'vitest';
import { verifySender } from '../../../src/surfaces/email/verify.ts';
import { dkimSigned, dnsStub } from '../../support/email/dkim.ts';

const message = (from = 'Alice Example <alice@example.org>', body = 'Friday works for me.') =>
  [
    `From: ${from}`,
    'To: agent@switchboard.example',
    'Subject: Re: Plan',
    'Date: Mon, 06 Jan 2025 10:00:00 +0000',
    'Message-ID: <reply-1@example.org>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    body,
    '',
  ].join('\r\n');

const SERVER = { ip: '192.0.2.10', helo: 'mail.example.org', mta: 'mx.switchboard.example' };

describe('verifying the sender of a mail', () => {
  it('verifies a From address by a passing DKIM signature of its domain, asking only the given DNS', async () => {
    const resolver = dnsStub([{ domain: 'example.org', selector: 'mail' }]);
    const signed = await dkimSigned(message(), { domain: 'example.org', selector: 'mail' });
    const check = await verifySender(signed, { ...SERVER, sender: 'alice@example.org', resolver });
    expect(check).toEqual({
      verified: true,
      address: 'alice@example.org',
      reason: 'alice@example.org is verified: a DKIM signature of example.org passes.',
    });
    expect(resolver.queries).toContain('TXT mail._domainkey.example.org');
  });

  it('keeps a signature good however slowly it is made: the signing time is written once', async () => {
    // A clock that moves a second between any two readings: what a half second turning between mailauth's two
    // readings while it signs does once in a few hundred signatures.
    let now = Date.UTC(2025, 0, 6, 10);
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => (now += 1000));
    try {
      const resolver = dnsStub([{ domain: 'example.org', selector: 'mail' }]);
      const signed = await dkimSigned(message(), { domain: 'example.org', selector: 'mail' });
      expect((await verifySender(signed, { ...SERVER, resolver })).reason).toBe(
        'alice@example.org is verified: a DKIM signature of example.org passes.',
      );
    } finally {
      clock.mockRestore();
    }
  });

  it('accepts a signature of a subdomain of the same organisation (relaxed alignment)', async () => {
    const resolver = dnsStub([{ domain: 'mail.example.org', selector: 's1' }]);
    const signed = await dkimSigned(message(), { domain: 'mail.example.org', selector: 's1' });
    expect((await verifySender(signed, { ...SERVER, resolver })).verified).toBe(true);
  });

  it('refuses a signed mail whose body was changed after signing', async () => {
    const resolver = dnsStub([{ domain: 'example.org', selector: 'mail' }]);
    const signed = (await dkimSigned(message(), { domain: 'example.org', selector: 'mail' })).toString();
    const tampered = signed.replace('Friday works for me.', 'Send the invoice to account 666.');
    const check = await verifySender(tampered, { ...SERVER, resolver });
    expect(check.verified).toBe(false);
    expect(check.reason).toMatch(
      /^alice@example\.org is not verified: the DKIM signature of example\.org gives neutral \(body hash did not verify\)/,
    );
  });

  it('refuses a signature that passes for another domain than the From domain', async () => {
    const resolver = dnsStub([{ domain: 'mailer.example.net', selector: 'k1' }]);
    const signed = await dkimSigned(message(), { domain: 'mailer.example.net', selector: 'k1' });
    const check = await verifySender(signed, { ...SERVER, resolver });
    expect(check.verified).toBe(false);
    expect(check.reason).toContain('the DKIM signature of mailer.example.net passes but is not for example.org');
  });

  it('refuses a signature made with a key the domain does not publish', async () => {
    const resolver = dnsStub([{ domain: 'example.org', selector: 'other' }]);
    const signed = await dkimSigned(message(), { domain: 'example.org', selector: 'mail' });
    const check = await verifySender(signed, { ...SERVER, resolver });
    expect(check.verified).toBe(false);
    expect(check.reason).toMatch(/the DKIM signature of example\.org gives (neutral|fail|permerror)/);
  });

  it("verifies an unsigned mail sent from a server the From domain's SPF names", async () => {
    const resolver = dnsStub([{ domain: 'example.org', spfIp: SERVER.ip }]);
    const check = await verifySender(message(), { ...SERVER, sender: 'bounces@example.org', resolver });
    expect(check).toEqual({
      verified: true,
      address: 'alice@example.org',
      reason: 'alice@example.org is verified: SPF of example.org passes for the sending server 192.0.2.10.',
    });
  });

  it("refuses SPF that passes for another domain's envelope", async () => {
    const resolver = dnsStub([{ domain: 'sender.example.net', spfIp: SERVER.ip, dmarc: false }]);
    const check = await verifySender(message(), { ...SERVER, sender: 'bounce-7@sender.example.net', resolver });
    expect(check).toEqual({
      verified: false,
      address: 'alice@example.org',
      reason:
        'alice@example.org is not verified: it has no DKIM signature; SPF passes for sender.example.net, which is not example.org.',
    });
  });

  it('refuses a mail from a server the SPF record does not name', async () => {
    const resolver = dnsStub([{ domain: 'example.org', spfIp: '198.51.100.1' }]);
    const check = await verifySender(message(), { ...SERVER, sender: 'alice@example.org', resolver });
    expect(check.verified).toBe(false);
    expect(check.reason).toContain('SPF of example.org gives fail');
  });

  it('verifies no one when the From header names two addresses', async () => {
    const resolver = dnsStub([{ domain: 'example.org', selector: 'mail' }]);
    const signed = await dkimSigned(message('alice@example.org, mallory@example.org'), { domain: 'example.org' });
    expect(await verifySender(signed, { ...SERVER, resolver })).toEqual({
      verified: false,
      address: '',
      reason: 'The mail has 2 From addresses, so no one sender can be verified.',
    });
  });
});
