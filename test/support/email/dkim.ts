// Signing test mail as a sending domain signs it (DKIM, with mailauth's own
// signer), and a DNS stand-in that publishes what that domain would: its DKIM
// key, its SPF record and its DMARC policy. mailauth's verification then runs
// unchanged, with only its resolver pointed here; no real DNS is asked.
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';

/** An RSA key pair: the private key (PEM) and the public key as a DKIM record's `p=` (base64 SPKI). */
export interface DkimKey {
  privateKey: string;
  publicKey: string;
}

let shared: DkimKey | null = null;

/** The test key, made once per process (a 2048-bit key takes a moment to make). */
export function dkimKey(): DkimKey {
  if (!shared) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    shared = {
      privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    };
  }
  return shared;
}

/** `raw` with a DKIM-Signature of `domain` (selector `selector`, the test key unless another is given) prepended. */
export async function dkimSigned(
  raw: string | Buffer,
  { domain, selector = 'mail', key = dkimKey() }: { domain: string; selector?: string; key?: DkimKey },
): Promise<Buffer> {
  const message = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.replace(/\r?\n/g, '\r\n'));
  const signer = { signingDomain: domain, selector, privateKey: key.privateKey };
  // mailauth's types want the signer at the top level too; the signer itself reads signatureData.
  const { signatures, errors } = await dkimSign(message, {
    ...signer,
    canonicalization: 'relaxed/relaxed',
    algorithm: 'rsa-sha256',
    signatureData: [signer],
    // The signing time, fixed once. Without it mailauth writes `t=` twice, each time as Math.round(Date.now() / 1000):
    // once in the header it signs and again in the header it returns, and when half a second turns between the two
    // (the RSA signature is made in between) the header no longer matches its signature ("bad signature").
    signTime: new Date(),
  });
  if (errors.length) throw new Error(`DKIM signing failed: ${errors.map((e) => e.message).join('; ')}`);
  return Buffer.concat([Buffer.from(signatures), message]);
}

/** What one domain publishes in the stand-in's DNS. */
export interface MailDomain {
  domain: string;
  /** Publishes the DKIM key (the test key unless `key`) at `<selector>._domainkey.<domain>`. */
  selector?: string;
  key?: DkimKey;
  /** Publishes `v=spf1 ip4:<spfIp> -all`. */
  spfIp?: string;
  /** The `_dmarc.<domain>` record; none when false. Default `v=DMARC1; p=reject`. */
  dmarc?: string | false;
}

/** A resolver with mailauth's signature, and the names it was asked for. */
export interface DnsStub {
  (name: string, rrtype: string): Promise<string[][]>;
  queries: string[];
}

/**
 * A DNS stand-in answering TXT queries for the given domains (TXT answers are lists of strings, as node:dns gives
 * them); every other name or type is not found, as a real resolver reports it (ENOTFOUND).
 */
export function dnsStub(domains: MailDomain[]): DnsStub {
  const txt = new Map<string, string[]>();
  const add = (name: string, value: string) =>
    txt.set(name.toLowerCase(), [...(txt.get(name.toLowerCase()) ?? []), value]);
  for (const d of domains) {
    if (d.selector) add(`${d.selector}._domainkey.${d.domain}`, `v=DKIM1; k=rsa; p=${(d.key ?? dkimKey()).publicKey}`);
    if (d.spfIp) add(d.domain, `v=spf1 ip4:${d.spfIp} -all`);
    if (d.dmarc !== false) add(`_dmarc.${d.domain}`, d.dmarc ?? 'v=DMARC1; p=reject');
  }
  const stub = (async (name: string, rrtype: string) => {
    stub.queries.push(`${rrtype} ${name}`);
    const found = rrtype === 'TXT' ? txt.get(name.toLowerCase()) : undefined;
    if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND', hostname: name });
    // Long records come in 255-character strings, as DNS carries them.
    return found.map((record) => record.match(/.{1,255}/g) ?? ['']);
  }) as DnsStub;
  stub.queries = [];
  return stub;
}
