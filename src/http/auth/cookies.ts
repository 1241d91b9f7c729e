import type { CookieOptions, Request } from 'express';
import type { App } from '../../app.ts';

/** One cookie from the request; express does not parse cookies itself. */
export function readCookie(req: Request, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
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
