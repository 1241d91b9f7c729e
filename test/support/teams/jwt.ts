// Just enough JOSE for the stand-in, on node:crypto: RSA signing keys with a
// key id, their public JWK, and RS256 JSON Web Tokens signed and checked the
// way the Bot Framework and Entra ID do. The SDK under test verifies these
// with its own `jsonwebtoken`, so nothing here is trusted by the code being
// tested; it only has to produce standard tokens.
import { createHash, createSign, createVerify, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';

export interface SigningKey {
  /** The `kid` the token header names and the JWKS publishes. */
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A public key as a JWKS entry; Bot Framework keys also carry `endorsements` (the channels they may sign for). */
export interface PublishedJwk {
  kty: 'RSA';
  use: 'sig';
  kid: string;
  x5t: string;
  n: string;
  e: string;
  endorsements?: string[];
}

export type JwtClaims = Record<string, unknown>;

/** A fresh 2048-bit RSA key (about 50 ms; generate once per stand-in, not per token). */
export function generateSigningKey(kid = randomUUID().replace(/-/g, '')): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey };
}

export function publicJwk(key: SigningKey, endorsements?: string[]): PublishedJwk {
  const jwk = key.publicKey.export({ format: 'jwk' });
  // Real keys have an X.509 thumbprint; nothing validates it, so a hash of the key id stands in.
  const x5t = createHash('sha1').update(key.kid).digest('base64url');
  return {
    kty: 'RSA',
    use: 'sig',
    kid: key.kid,
    x5t,
    n: String(jwk.n),
    e: String(jwk.e),
    ...(endorsements ? { endorsements } : {}),
  };
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An RS256 JWT over `claims`, with `kid` (default the key's own) and `x5t` in the header. */
export function signJwt(claims: JwtClaims, key: SigningKey, header: { kid?: string } = {}): string {
  const kid = header.kid ?? key.kid;
  const x5t = createHash('sha1').update(kid).digest('base64url');
  const signingInput = `${b64({ alg: 'RS256', kid, x5t, typ: 'JWT' })}.${b64(claims)}`;
  const signature = createSign('RSA-SHA256').update(signingInput).sign(key.privateKey).toString('base64url');
  return `${signingInput}.${signature}`;
}

export type JwtCheck = { ok: true; claims: JwtClaims } | { ok: false; reason: string };

/** Checks an RS256 JWT's signature against `key` and its `exp`/`nbf` against now (Date.now, so fake timers apply). */
export function verifyJwt(token: string, key: SigningKey): JwtCheck {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed token' };
  const [header, payload, signature] = parts as [string, string, string];
  let claims: JwtClaims;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as { alg?: string; kid?: string };
    if (head.alg !== 'RS256') return { ok: false, reason: `unexpected alg ${String(head.alg)}` };
    if (head.kid !== key.kid) return { ok: false, reason: 'unknown signing key' };
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as JwtClaims;
  } catch {
    return { ok: false, reason: 'malformed token' };
  }
  const valid = createVerify('RSA-SHA256')
    .update(`${header}.${payload}`)
    .verify(key.publicKey, Buffer.from(signature, 'base64url'));
  if (!valid) return { ok: false, reason: 'invalid signature' };
  const now = Math.floor(Date.now() / 1000);
  if (typeof claims.exp !== 'number' || claims.exp <= now) return { ok: false, reason: 'token expired' };
  if (typeof claims.nbf === 'number' && claims.nbf > now) return { ok: false, reason: 'token not yet valid' };
  return { ok: true, claims };
}
