import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { PermanentFailure } from '../../core/errors.ts';

/**
 * Encryption of platform credentials kept in the database (Slack bot tokens,
 * later Teams secrets): AES-256-GCM with a key derived from SWITCHBOARD_SECRET
 * by HKDF, so the database alone never reveals a token. Each sealed value is
 * bound to its context (e.g. `slack:T0123`), so a sealed token copied into
 * another row does not open there.
 *
 * Format: `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export interface SecretBox {
  /** Encrypts `plain` for `context`. */
  seal(plain: string, context: string): string;
  /** Decrypts what `seal` produced for the same context; throws SecretBoxError when it was tampered with, sealed for another context or with another secret. */
  open(sealed: string, context: string): string;
  /** A keyed hash (HMAC-SHA256, hex) for signing values such as OAuth state. */
  sign(value: string): string;
  /** Whether `signature` is `sign(value)`, compared in constant time. */
  verify(value: string, signature: string): boolean;
}

/**
 * A sealed value could not be opened; the message says what to check, never
 * the value. A job that meets it fails for good at once: retrying cannot open
 * it, only the secret it was sealed with, or storing the value anew.
 */
export class SecretBoxError extends PermanentFailure {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const VERSION = 'v1';
const b64 = (b: Buffer) => b.toString('base64url');

/** Derives an independent key for one purpose from the app secret. */
function derive(secret: string, purpose: string): Buffer {
  if (!secret) throw new SecretBoxError('No secret to derive keys from; set SWITCHBOARD_SECRET.');
  return Buffer.from(hkdfSync('sha256', secret, 'switchboard', purpose, 32));
}

export function createSecretBox(secret: string): SecretBox {
  const encKey = derive(secret, 'platform-credentials/aes-256-gcm');
  const macKey = derive(secret, 'platform-credentials/hmac');
  return {
    seal(plain, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', encKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, b64(iv), b64(cipher.getAuthTag()), b64(data)].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) {
        throw new SecretBoxError('The stored credential is not in a format this version of Switchboard can read.');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', encKey, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError(
          'The stored credential could not be decrypted: SWITCHBOARD_SECRET changed since it was stored, or the value was altered. Install or connect again to store it anew.',
        );
      }
    },
    sign(value) {
      return createHmac('sha256', macKey).update(value, 'utf8').digest('hex');
    },
    verify(value, signature) {
      const expected = Buffer.from(this.sign(value), 'hex');
      const given = Buffer.from(signature, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}
