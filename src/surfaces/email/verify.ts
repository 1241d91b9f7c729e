// Whether a mail really comes from the address in its From header. Anyone can
// write any From; what a sender cannot forge is a DKIM signature made with the
// key its domain publishes, or being sent from a server its domain's SPF
// record names. Either proves the From address only when it is for the From
// domain (DMARC's relaxed alignment: the same organisational domain, so
// mail.example.org signs for example.org). mailauth does the checking.
import { authenticate, type DNSResolver } from 'mailauth';
import { getDomain } from 'tldts';

/** Where and how a mail arrived: the SMTP client and envelope, and the DNS to ask (node:dns when absent). */
export interface VerifyOptions {
  /** The SMTP client's IP address. */
  ip?: string;
  /** Its HELO/EHLO name. */
  helo?: string;
  /** This server's name, as it writes it in Authentication-Results. */
  mta?: string;
  /** The MAIL FROM address ('' for the null return path). */
  sender?: string;
  /** A DNS resolver as mailauth calls it: TXT answers are lists of strings; an unknown name throws with code ENOTFOUND. */
  resolver?: (name: string, rrtype: string) => Promise<unknown>;
}

/** What the check found about a mail's From address. */
export interface SenderCheck {
  /** True when an aligned DKIM signature or SPF pass proves the From address. */
  verified: boolean;
  /** The From address, in lower case ('' when there is not exactly one). */
  address: string;
  /** A sentence: what proved it, or what was missing. */
  reason: string;
}

// The public suffix list as mailauth reads it, private suffixes included (one github.io site is not another).
const SUFFIXES = { allowIcannDomains: true, allowPrivateDomains: true };
const orgDomain = (domain: string) => {
  const lower = domain.toLowerCase().replace(/\.$/, '');
  return getDomain(lower, SUFFIXES) ?? lower;
};
const aligned = (domain: string, fromDomain: string) => orgDomain(domain) === orgDomain(fromDomain);

/** Checks a raw mail's DKIM signatures and SPF against its From address. */
export async function verifySender(raw: Buffer | string, opts: VerifyOptions = {}): Promise<SenderCheck> {
  const result = await authenticate(raw, {
    ip: opts.ip,
    helo: opts.helo,
    mta: opts.mta,
    sender: opts.sender,
    resolver: opts.resolver as DNSResolver | undefined,
    trustReceived: false,
    disableArc: true,
    disableBimi: true,
  });
  const from = result.dkim.headerFrom ?? [];
  if (from.length !== 1)
    return {
      verified: false,
      address: '',
      reason: from.length
        ? `The mail has ${from.length} From addresses, so no one sender can be verified.`
        : 'The mail has no From address to verify.',
    };
  const address = from[0].toLowerCase();
  const fromDomain = address.split('@').pop() ?? '';

  const passed = result.dkim.results.filter((r) => r.status.result === 'pass');
  const signer = passed.find((r) => aligned(r.signingDomain, fromDomain));
  if (signer)
    return {
      verified: true,
      address,
      reason: `${address} is verified: a DKIM signature of ${signer.signingDomain} passes.`,
    };
  const spf = result.spf;
  if (spf && spf.status.result === 'pass' && aligned(spf.domain, fromDomain))
    return {
      verified: true,
      address,
      reason: `${address} is verified: SPF of ${spf.domain} passes for the sending server ${spf['client-ip']}.`,
    };

  // An unsigned mail has one result, "none", without a domain.
  const signed = result.dkim.results.filter((r) => r.signingDomain);
  const signatures = signed.length
    ? signed
        .map((r) =>
          r.status.result === 'pass'
            ? `the DKIM signature of ${r.signingDomain} passes but is not for ${fromDomain}`
            : `the DKIM signature of ${r.signingDomain} gives ${r.status.result}${r.status.comment ? ` (${r.status.comment})` : ''}`,
        )
        .join(', ')
    : 'it has no DKIM signature';
  const sent = !spf
    ? 'SPF was not checked'
    : spf.status.result === 'pass'
      ? `SPF passes for ${spf.domain}, which is not ${fromDomain}`
      : `SPF of ${spf.domain} gives ${spf.status.result}`;
  return { verified: false, address, reason: `${address} is not verified: ${signatures}; ${sent}.` };
}
