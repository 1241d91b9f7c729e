// The addresses agents are written to at, in EMAIL_DOMAIN:
//   <agent>@<domain>              the workspace connected as the domain's default
//   <workspace>+<agent>@<domain>  the workspace with that slug, when connected to email
// <agent> is the agent's name as people write it in chat (`reviewer`, or
// `alice/builder` when two agents share the name); a person's handle reaches
// that person. Pure: which workspace and agent an address names is looked up
// in recipients.ts.

/** The tenant that stands for the domain's plain addresses (`reviewer@<domain>`): no workspace slug looks like it. */
export const DEFAULT_TENANT = '*';

/** An address of ours, taken apart. */
export interface OurAddress {
  /** The workspace slug before the `+`; null for the plain form, which reaches the default workspace. */
  label: string | null;
  /** The agent or person named, lowercased (`reviewer`, `alice/builder`). */
  name: string;
}

const LABEL = /^[a-z0-9][a-z0-9-]{0,62}$/;
const NAME = /^[a-z0-9][a-z0-9_.-]{0,38}(?:\/[a-z0-9][a-z0-9_.-]{0,38})?$/;

/** `local@domain` split at the last `@`, the domain lowercased; null when it is no address. */
export function splitAddress(address: string): { local: string; domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return {
    local: address.slice(0, at),
    domain: address
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, ''),
  };
}

/** True when the address is in our domain (an agent's, or one Switchboard would take). */
export const isOurs = (address: string, domain: string) => splitAddress(address)?.domain === domain;

/**
 * The workspace label and the name an address in `domain` gives; null when it is in another domain or names no one
 * the way agents are named (a quoted local part, spaces, two `+`).
 */
export function parseOurAddress(address: string, domain: string): OurAddress | null {
  const parts = splitAddress(address.trim());
  if (!parts || parts.domain !== domain) return null;
  const local = parts.local.toLowerCase();
  const plus = local.indexOf('+');
  const label = plus === -1 ? null : local.slice(0, plus);
  const name = plus === -1 ? local : local.slice(plus + 1);
  if (label !== null && !LABEL.test(label)) return null;
  return NAME.test(name) ? { label, name } : null;
}

/** An agent's address: `<label>+<name>@<domain>`, or `<name>@<domain>` in the default workspace (`label` null). */
export const addressOf = (name: string, label: string | null, domain: string) =>
  `${label ? `${label}+` : ''}${name}@${domain}`;
