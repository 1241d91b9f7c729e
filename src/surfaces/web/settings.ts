import type { Config } from '../../config.ts';
import type { SigninLimits } from '../contract.ts';

/** What the web chat needs from the configuration, parsed once at the composition root (tests lower the limits). */
export interface WebSettings {
  /** PUBLIC_URL: where people open the chat (links to it, the MCP address shown to agent owners). */
  publicUrl: string;
  /** Failed sign-ins allowed per address and per account; the sign-in pages' defaults when absent. */
  signinLimits?: SigninLimits;
  /** How often an idle event stream sends a keepalive, so proxies keep it open. */
  keepaliveMs: number;
}

export function webSettings(config: Config, overrides: Partial<WebSettings> = {}): WebSettings {
  return {
    publicUrl: overrides.publicUrl ?? config.publicUrl,
    signinLimits: overrides.signinLimits,
    keepaliveMs: overrides.keepaliveMs ?? 25_000,
  };
}
