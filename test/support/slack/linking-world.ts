// Shared by the Slack linking tests: a server with every mount (Slack through
// the stand-in, the web sign-in, the link pages), alice and bob with
// passwords, and helpers to find the link prompt a Slack user got and to
// follow a link in a cookie-keeping HTTP client.
import { vi } from 'vitest';
import type { Database } from '../../../src/infra/db/client.ts';
import { LINK_OPEN } from '../../../src/surfaces/slack/linking.ts';
import { SYSTEM } from '../../../src/core/actor.ts';
import { hashPassword } from '../../../src/http/auth/index.ts';
import { pgliteDb, type TestDatabase } from '../db.ts';
import { dmChannelId, SLACK_DEFAULTS } from './defaults.ts';
import { appMention, eventCallback } from './signed-request.ts';
import { startSlackStandin, type SlackStandin, type StoredMessage } from './web-api-standin.ts';
import { HttpBrowser } from '../web/browser.ts';
import { postCommand, startHarness, type Harness } from './harness.ts';

export const BOT = `<@${SLACK_DEFAULTS.botUserId}>`;
export const PASSWORD = 'correct horse battery staple';

export interface LinkingWorld {
  db: Database;
  standin: SlackStandin;
  h: Harness;
  mention(user: string, text: string, channel?: string): Promise<Response>;
  command(user: string, text: string, channel?: string): ReturnType<typeof postCommand>;
  /** The link prompts the app DM'd to a Slack user (messages with the "Link your account" button). */
  prompts(user: string): StoredMessage[];
  close(): Promise<void>;
}

/** Starts the world; every Slack user named in `users` exists in the stand-in with that real name. */
export async function startLinkingWorld(
  users: Record<string, string>,
  kind: TestDatabase = pgliteDb,
): Promise<LinkingWorld> {
  const [db, standin] = await Promise.all([kind.open(), startSlackStandin()]);
  for (const [id, name] of Object.entries(users))
    standin.setUser(id, { real_name: name, email: `${name.split(' ')[0].toLowerCase()}@example.test` });
  const h = await startHarness({ database: db, standin, seed: true, allMounts: true });
  const { app } = h.server;
  await app.orgs.addPerson(SYSTEM, { handle: 'bob', org: 'acme', displayName: 'Bob' });
  for (const handle of ['alice', 'bob']) {
    await app.store.people.setPasswordHash((await app.store.people.get(handle))!.id, await hashPassword(PASSWORD));
  }
  return {
    db,
    standin,
    h,
    mention: (user, text, channel = 'C0GENERAL') =>
      h.post(eventCallback(appMention({ user, channel, text: `${BOT} ${text}` }))),
    command: (user, text, channel = 'C0GENERAL') =>
      postCommand(h, standin, { command: '/switchboard', text, user_id: user, channel_id: channel }),
    prompts: (user) => standin.messages(dmChannelId(user)).filter((m) => linkUrlOf(m) !== null),
    close: async () => {
      await h.stop();
      await standin.close();
      await db.close();
    },
  };
}

/** The URL behind a message's "Link your account" button; null when it has none. */
export function linkUrlOf(m: object): string | null {
  const blocks = ((m as { blocks?: unknown }).blocks ?? []) as Array<{
    elements?: Array<{ action_id?: string; url?: string }>;
  }>;
  for (const b of blocks) for (const e of b.elements ?? []) if (e.action_id === LINK_OPEN && e.url) return e.url;
  return null;
}

/** `/link/<nonce>` from a full link URL (PUBLIC_URL differs from the test server's address). */
export const linkPath = (url: string) => new URL(url).pathname;

/** Waits for exactly one prompt in the user's DM and returns its link path. */
export async function promptedPath(w: LinkingWorld, user: string): Promise<string> {
  const [prompt] = await vi.waitFor(
    () => {
      const found = w.prompts(user);
      if (!found.length) throw new Error(`no link prompt for ${user} yet`);
      return found;
    },
    { timeout: 20_000, interval: 50 },
  );
  return linkPath(linkUrlOf(prompt)!);
}

/** Opens a link while signed out, signs in as `handle` on the way, and returns the browser on the confirmation page. */
export async function followAndSignIn(w: LinkingWorld, path: string, handle: string) {
  const b = new HttpBrowser(w.h.server.url);
  const first = await b.get(path);
  if (first.status !== 303 || !first.location?.startsWith('/signin?next='))
    throw new Error(`expected a sign-in redirect, got ${first.status} ${first.location}`);
  const next = new URLSearchParams(first.location.split('?')[1]).get('next')!;
  await b.get(first.location);
  const signedIn = await b.form('/signin', { handle, password: PASSWORD, next });
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);
  const page = await b.get(signedIn.location!);
  return { b, page, next };
}
