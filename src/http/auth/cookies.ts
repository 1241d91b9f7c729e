import { parseCookie } from 'cookie';
import type { CookieOptions, Request } from 'express';
import type { App } from '../../app.ts';

/**
 * One cookie from the request (express writes cookies but does not read them), parsed by the `cookie` library that
 * express writes them with; null when the request has none by that name.
 */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  return header ? (parseCookie(header)[name] ?? null) : null;
}

/** HttpOnly, SameSite=Lax, Secure whenever the public URL is https. */
export function cookieOptions(app: App, maxAgeMs?: number): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: app.config.publicUrl.startsWith('https://'),
    ...(maxAgeMs ? { maxAge: maxAgeMs } : {}),
  };
}
