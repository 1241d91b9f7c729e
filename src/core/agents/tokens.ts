import { createHash, randomBytes } from 'node:crypto';

/** A new agent token: 256 random bits, shown once and stored only as its hash. */
export const newAgentToken = () => `sb_${randomBytes(32).toString('base64url')}`;

/** A single-use nonce for sign-in and link URLs (256 random bits). */
export const newNonce = () => randomBytes(32).toString('base64url');

/** SHA-256 is enough here: the tokens are random, so there is nothing to brute-force. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
