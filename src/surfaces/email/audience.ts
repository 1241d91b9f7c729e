// Who reads an email thread, for the core's audience rules: everyone its mails
// were from or to (From, Reply-To, To, Cc), each an address; Switchboard's own
// addresses are agents, not readers. An address counts as the person who linked
// it in the workspace, any other address as a guest: one address outside the
// workspace makes the whole thread as open as a guest, so agents answer there
// with only what a guest may see. The list is kept like a chat channel's
// members, written anew from the thread's mails whenever a mail arrives (before
// an agent reads it), and read again from them when older than an hour.
import type { Workspace } from '../../core/entities.ts';
import type { SurfaceAudience } from '../../core/linking/audience-ports.ts';
import { cachedMembers } from '../shared/audience.ts';
import { isOurs } from './addresses.ts';
import { loggable } from './errors.ts';
import type { StoredMail } from './mail-repo.ts';
import { workspaceOfTenant, type EmailRuntime } from './runtime.ts';
import { decodeConversationKey, encodeConversationKey, threadFromRef } from './thread-id.ts';
import { EMAIL } from './topics.ts';

/** Most mails of a thread read for its readers (the latest; answers go to the people of as many). */
const THREAD_READ = 200;

/** Every address the mails were from or to, but ours, once each. */
export function readersOf(mails: StoredMail[], domain: string): string[] {
  const all = mails.flatMap((m) => [...m.parties.from, ...m.parties.replyTo, ...m.parties.to, ...m.parties.cc]);
  return [...new Set(all.map((a) => a.address).filter((a) => !isOurs(a, domain)))];
}

/** The readers of a thread as its mails say; null when none of them is kept (nobody can be vouched for). */
async function threadReaders(rt: EmailRuntime, workspace: Workspace, root: string): Promise<string[] | null> {
  const readers = readersOf(await rt.mails.thread(workspace.id, root, THREAD_READ), rt.settings.domain);
  return readers.length ? readers : null;
}

/** Keeps the thread's readers as its mails now say, before an agent reads its latest mail. */
export async function keepReaders(rt: EmailRuntime, workspace: Workspace, root: string): Promise<void> {
  const readers = await threadReaders(rt, workspace, root);
  if (!readers) return;
  const key = encodeConversationKey({ tenant: workspace.slug, root });
  await rt.core.audiences.putChannelMembers(EMAIL.surface, workspace.slug, key, readers, rt.core.clock.now());
}

/** The email side of audiences, registered with the core's AudienceService. */
export function emailAudience(rt: EmailRuntime): SurfaceAudience {
  return {
    locate(c) {
      const thread = threadFromRef(c.externalRef);
      return thread && { kind: 'channel', tenantId: thread.tenant, channelId: encodeConversationKey(thread) };
    },
    members: cachedMembers({
      surface: EMAIL.surface,
      app: rt.core,
      logger: rt.logger,
      loggable,
      async read(tenantId, channelId) {
        const root = decodeConversationKey(channelId);
        // A root too long for the key is kept as its hash: its list stays as the last mail wrote it.
        if (!root || root.startsWith('#')) return null;
        const workspace = await workspaceOfTenant(rt, tenantId);
        const members = workspace && (await threadReaders(rt, workspace, root));
        return members && { members };
      },
    }),
  };
}
