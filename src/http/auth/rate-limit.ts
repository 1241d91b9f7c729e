import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';

import type { SigninLimits } from '../../surfaces/contract.ts';

export type { SigninLimits };

export const DEFAULT_SIGNIN_LIMITS: SigninLimits = { perAddress: 20, perAccount: 10, windowMs: 15 * 60_000 };

const handleOf = (req: Request) =>
  String((req.body as Record<string, unknown> | undefined)?.handle ?? '')
    .trim()
    .replace(/^@/, '')
    .toLowerCase();

/**
 * Two limits on failed sign-ins (successful ones do not count): one per client
 * address against one guesser, one per account against many. When either is
 * reached, `onLimited` answers instead of the sign-in handler.
 */
export function signinLimiters(
  limits: SigninLimits,
  onLimited: (req: Request, res: Response, retryAfterMinutes: number) => void,
): RequestHandler[] {
  const minutes = Math.ceil(limits.windowMs / 60_000);
  const common = {
    windowMs: limits.windowMs,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-8' as const,
    legacyHeaders: false,
    handler: (req: Request, res: Response) => onLimited(req, res, minutes),
  };
  return [
    rateLimit({ ...common, limit: limits.perAddress, keyGenerator: (req) => `ip:${ipKeyGenerator(req.ip ?? '')}` }),
    rateLimit({
      ...common,
      limit: limits.perAccount,
      keyGenerator: (req) => `account:${handleOf(req) || 'none'}`,
      validate: { keyGeneratorIpFallback: false },
    }),
  ];
}
