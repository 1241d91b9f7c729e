import { z } from 'zod';
import { hashSecret, newNonce } from '../agents/tokens.ts';
import type { Actor } from '../actor.ts';
import { conflict, notFound, notPermitted, PermanentFailure, SwitchboardError } from '../errors.ts';
import { workspaceRole } from '../organizations/access.ts';
import type { Clock, Store } from '../ports.ts';
import type { ExternalIdentity, ExternalKey, ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Person, Workspace } from '../entities.ts';
import {
  alreadyLinked,
  boundTo,
  isWellFormedNonce,
  LINK_TTL_MS,
  linkRefusal,
  linkState,
  linkSubject,
  parseSubject,
  plainWording,
  type LinkState,
  type LinkSubject,
  type LinkWording,
} from './link-rules.ts';

/** Why the prompt is sent: the first time someone talks to an agent, because linking is required, or because they asked. */
export type PromptReason = 'first' | 'required' | 'asked';

/** A link prompt, surface-agnostic: Slack renders it as a message with buttons, Teams as a card. */
export interface LinkPrompt {
  /** What the message says (Markdown-ish: *bold* only). */
  text: string;
  /** The label of the button that opens `url`. */
  button: string;
  /** The label of the button that sends a fresh link. */
  again: string;
  url: string;
  expiresAt: Date;
}

export interface LinkOffer {
  identity: ExternalIdentity;
  url: string;
  expiresAt: Date;
  prompt: LinkPrompt;
}

/** What the link page shows for a nonce. */
export type LinkCheck =
  | { state: 'valid'; identity: ExternalIdentity; subject: LinkSubject; expiresAt: Date; linkedTo: Person | null }
  | { state: Exclude<LinkState, 'valid'>; subject: LinkSubject | null; refusal: string };

/** Topic of the job that tells the chat user their account is linked (`<surface>.link.done`). */
export const linkDoneTopic = (surface: ExternalSurface) => `${surface}.link.done`;

/** The payload of a link-done job, as `confirm` writes it. */
const LinkDoneJob = z.object({ identityId: z.string().uuid(), personId: z.string().uuid() });

function linkPrompt(wording: LinkWording, url: string, expiresAt: Date, reason: PromptReason): LinkPrompt {
  const app = wording.app;
  const minutes = LINK_TTL_MS / 60_000;
  const why =
    reason === 'required'
      ? `This Switchboard workspace answers only people who have linked their ${app} account, so your message did not reach any agent.`
      : `Link your ${app} account to your Switchboard account, so agents know it is you and act with your own access.`;
  const meanwhile =
    reason === 'required'
      ? 'Link it, then write again.'
      : 'Until then you talk to agents as a guest: they answer, but show you nothing private and change nothing for you.';
  return {
    text: `*Link your account*\n${why} ${meanwhile}\nThe link works once, for ${minutes} minutes; sign in to Switchboard and confirm.`,
    button: 'Link your account',
    again: 'Send me a new link',
    url,
    expiresAt,
  };
}

/**
 * Links chat identities (a Slack user in a team, a Teams user in a tenant) to
 * Switchboard people with a single-use nonce sent in a DM: at least 128
 * random bits, stored only as a hash, bound to one identity, valid 15 minutes.
 * Any surface uses it; only the rendering of the prompt differs.
 */
export class LinkService {
  private readonly registered = new Map<ExternalSurface, LinkWording>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    private readonly afterCommit: () => void = () => {},
  ) {}

  /** How a surface speaks of links (its name, how to get a new link); each surface registers its own. */
  registerWording(surface: ExternalSurface, wording: LinkWording): void {
    this.registered.set(surface, wording);
  }

  /** The wordings every surface of this process registered, in the order they did. */
  wordings(): LinkWording[] {
    return [...this.registered.values()];
  }

  /** The registered wording of a surface, or a plain one when it registered none. */
  wording(surface: ExternalSurface): LinkWording {
    return this.registered.get(surface) ?? plainWording(surface);
  }

  private gone(state: Exclude<LinkState, 'valid'>, subject: LinkSubject | null) {
    return new SwitchboardError(state === 'unknown' ? 'NOT_FOUND' : 'CONFLICT', this.refusal(state, subject), {
      link: state,
    });
  }

  private refusal(state: Exclude<LinkState, 'valid'>, subject: LinkSubject | null): string {
    return linkRefusal(state, subject ? this.wording(subject.surface) : null);
  }

  /**
   * True only the first time this is asked for an identity (also across processes): the caller then sends the
   * prompt, and calls `promptNotSent` when that fails.
   */
  async firstPrompt(identity: ExternalIdentity): Promise<boolean> {
    // Prompted already as read: no claim to try (the mark is cleared only by promptNotSent).
    if (identity.linkPromptedAt) return false;
    return this.store.identities.claimLinkPrompt(identity.id, this.clock.now());
  }

  /** The prompt `firstPrompt` allowed could not be sent: the next message from this chat user tries again. */
  async promptNotSent(identity: ExternalIdentity): Promise<void> {
    await this.store.identities.releaseLinkPrompt(identity.id);
  }

  /** A fresh link for the identity, and the prompt to show with it. The nonce exists only in the returned URL. */
  async offer(
    identity: ExternalIdentity,
    opts: { tenantName?: string; reason?: PromptReason } = {},
  ): Promise<LinkOffer> {
    if (identity.personId) throw conflict(alreadyLinked(identity, this.wording(identity.surface), true, null));
    const nonce = newNonce();
    const expiresAt = new Date(this.clock.now().getTime() + LINK_TTL_MS);
    await this.store.tokens.create({
      purpose: 'link',
      tokenHash: hashSecret(nonce),
      personId: null,
      subject: linkSubject(identity, opts.tenantName),
      expiresAt,
    });
    const url = `${this.publicUrl}/link/${nonce}`;
    return {
      identity,
      url,
      expiresAt,
      prompt: linkPrompt(this.wording(identity.surface), url, expiresAt, opts.reason ?? 'asked'),
    };
  }

  /** What the link page shows; never changes anything (looking at a link does not use it). */
  async check(nonce: string): Promise<LinkCheck> {
    const token = isWellFormedNonce(nonce) ? await this.store.tokens.peek(hashSecret(nonce), 'link') : null;
    const subject = parseSubject(token?.subject ?? null);
    const state = subject ? linkState(token, this.clock.now()) : 'unknown';
    const identity = subject && state === 'valid' ? await this.store.identities.get(subject.identityId) : null;
    if (state !== 'valid' || !subject || !identity || !boundTo(subject, identity)) {
      const s = state === 'valid' ? 'unknown' : state;
      return { state: s, subject, refusal: this.refusal(s, subject) };
    }
    const linkedTo = identity.personId ? await this.store.people.get(identity.personId) : null;
    return { state, identity, subject, expiresAt: token!.expiresAt, linkedTo };
  }

  /**
   * Links the nonce's identity to the person, using the nonce up. Expired, used,
   * unknown nonces and identities linked already are refused and change nothing.
   */
  async confirm(nonce: string, personId: string): Promise<{ identity: ExternalIdentity; person: Person }> {
    const now = this.clock.now();
    const person = await this.store.people.get(personId);
    if (!person) throw notFound('Your Switchboard account', 'Sign in again.');
    const hash = isWellFormedNonce(nonce) ? hashSecret(nonce) : null;
    const result = await this.store.transaction(async (tx) => {
      // Consumed in the transaction: a refusal below rolls it back, so a refused link stays as it was.
      const token = hash ? await tx.tokens.consume(hash, 'link', now) : null;
      if (!token) {
        const seen = hash ? await tx.tokens.peek(hash, 'link') : null;
        const s = linkState(seen, now);
        throw this.gone(s === 'valid' ? 'used' : s, parseSubject(seen?.subject ?? null));
      }
      const subject = parseSubject(token.subject);
      const identity = subject ? await tx.identities.get(subject.identityId) : null;
      if (!subject || !identity || !boundTo(subject, identity)) throw this.gone('unknown', subject);
      if (identity.personId) {
        const holder = identity.personId === person.id ? person : await tx.people.get(identity.personId);
        throw conflict(
          alreadyLinked(
            identity,
            this.wording(identity.surface),
            identity.personId === person.id,
            holder?.handle ?? null,
          ),
          { link: 'linked' },
        );
      }
      const linked = await tx.identities.link(identity.id, person.id, now);
      if (!linked)
        throw conflict(alreadyLinked(identity, this.wording(identity.surface), false, null), { link: 'linked' });
      const done: z.infer<typeof LinkDoneJob> = { identityId: linked.id, personId: person.id };
      await tx.outbox.add({ topic: linkDoneTopic(linked.surface), payload: done, orderingKey: `link:${linked.id}` });
      await tx.audit.record({
        onBehalfOf: person.id,
        action: 'link_account',
        target: linked.id,
        result: 'linked',
        details: { surface: linked.surface, tenant: linked.tenantId },
      });
      return { identity: linked, person };
    });
    this.afterCommit();
    return result;
  }

  /** Removes one of the person's links (web settings). NOT_FOUND when it is not theirs. */
  async unlink(personId: string, identityId: string): Promise<ExternalIdentity> {
    const done = await this.store.identities.unlink(identityId, personId, this.clock.now());
    if (!done) throw notFound('That linked account', 'It may have been unlinked already; reload the list.');
    await this.store.audit.record({
      onBehalfOf: personId,
      action: 'unlink_account',
      target: done.id,
      result: 'unlinked',
      details: { surface: done.surface, tenant: done.tenantId },
    });
    return done;
  }

  /** Removes the link of a chat user (from the chat app itself); null when they were not linked. */
  async unlinkChatUser(key: ExternalKey): Promise<{ identity: ExternalIdentity; handle: string } | null> {
    const { identity, person } = await this.whoIs(key);
    if (!identity || !person) return null;
    return { identity: await this.unlink(person.id, identity.id), handle: person.handle };
  }

  /**
   * What a link-done job (`linkDoneTopic`) confirms: the chat user and the person they are still linked to; null
   * when they were unlinked again (or either was deleted) before it ran, as there is nothing true left to say.
   * A malformed job fails for good.
   */
  async linkDone(topic: string, raw: unknown): Promise<{ identity: ExternalIdentity; person: Person } | null> {
    const parsed = LinkDoneJob.safeParse(raw);
    if (!parsed.success)
      throw new PermanentFailure(`The ${topic} job is malformed (${parsed.error.issues[0]?.message}).`);
    const [identity, person] = await Promise.all([
      this.store.identities.get(parsed.data.identityId),
      this.store.people.get(parsed.data.personId),
    ]);
    return identity && person && identity.personId === person.id ? { identity, person } : null;
  }

  /** The chat user's identity and the person it is linked to (nulls when unknown or not linked). */
  async whoIs(key: ExternalKey): Promise<{ identity: ExternalIdentity | null; person: Person | null }> {
    const identity = await this.store.identities.find(key);
    const person = identity?.personId ? await this.store.people.get(identity.personId) : null;
    return { identity, person };
  }

  /**
   * Whether agents in the workspace hear from guests at all. With linking
   * required, an unlinked chat user's message reaches no agent; they get the link prompt.
   */
  async setRequired(actor: Actor, workspace: string, required: boolean): Promise<Workspace> {
    const ws = await this.store.workspaces.get(workspace);
    if (!ws) throw notFound(`The workspace "${workspace}"`, 'Check its name with the web app.');
    if (actor.kind === 'person') {
      const [member, direct] = await Promise.all([
        this.store.orgs.member(ws.orgId, actor.personId),
        this.store.workspaces.directRole(ws.id, actor.personId),
      ]);
      if (workspaceRole(ws, member?.role ?? null, direct) !== 'owner')
        throw notPermitted('Only a workspace owner (or an organization admin) can change whether linking is required.');
    }
    await this.store.workspaces.update(ws.id, { requireLinking: required });
    await this.store.audit.record({
      workspaceId: ws.id,
      onBehalfOf: actor.kind === 'person' ? actor.personId : null,
      action: 'require_linking',
      target: ws.slug,
      result: required ? 'required' : 'optional',
    });
    return { ...ws, requireLinking: required };
  }

  /**
   * The person with this handle and the chat account they linked in one tenant of a surface (to mention them there);
   * null when nobody has the handle or they linked no account there.
   */
  async linkedIn(
    handle: string,
    surface: ExternalSurface,
    tenantId: string,
  ): Promise<{ person: Person; identity: ExternalIdentity } | null> {
    const person = await this.store.people.get(handle);
    // `people.get` takes ids too: only a person whose handle this is counts.
    if (!person || person.handle.toLowerCase() !== handle.toLowerCase()) return null;
    const identity = (await this.linked(person.id)).find((i) => i.surface === surface && i.tenantId === tenantId);
    return identity ? { person, identity } : null;
  }

  /** The chat accounts linked to a person. */
  linked(personId: string): Promise<ExternalIdentity[]> {
    return this.store.identities.listForPerson(personId);
  }
}
