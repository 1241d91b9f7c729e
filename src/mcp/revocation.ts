import { tokenTopic } from '../core/agents/agent-service.ts';
import { SwitchboardError } from '../core/errors.ts';
import type { ToolContext } from './context.ts';

/** The refusal for a call made, or a wait ended, after the agent's token was rotated. */
export const tokenRotated = () =>
  new SwitchboardError(
    'UNAUTHENTICATED',
    'Your agent token was rotated, so this session no longer works; ask your owner for the current token ' +
      '(switchboard agent rotate-token OWNER/NAME prints a new one) and connect again with it.',
  );

export interface RevocationWatch {
  /** Aborts when the caller's signal does, or when the token is found rotated. */
  signal: AbortSignal;
  revoked(): boolean;
  stop(): Promise<void>;
}

/**
 * Watches the caller's token while a call waits: a rotation publishes on the
 * agent's token topic (through the notifier, so from any process), and the
 * token is checked again then. It is also checked once after listening starts,
 * so a rotation between the request's own check and the wait is not missed.
 */
export async function watchRevocation(ctx: ToolContext, outer?: AbortSignal): Promise<RevocationWatch> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (outer?.aborted) abort();
  outer?.addEventListener('abort', abort, { once: true });
  let revoked = false;
  const check = async () => {
    if (!ctx.stillAuthorized || revoked) return;
    // A failed look-up (the database briefly away) leaves the wait running; the next call is checked anyway.
    const ok = await ctx.stillAuthorized().catch((err: unknown) => {
      ctx.core.logger.warn({ err, agentId: ctx.agent.id }, 'could not re-check an agent token during a wait');
      return true;
    });
    if (!ok) {
      revoked = true;
      abort();
    }
  };
  const unsubscribe = ctx.stillAuthorized
    ? await ctx.core.notifier.subscribe(tokenTopic(ctx.agent.id), () => {
        void check();
      })
    : async () => {};
  await check();
  return {
    signal: controller.signal,
    revoked: () => revoked,
    stop: async () => {
      outer?.removeEventListener('abort', abort);
      await unsubscribe();
    },
  };
}
