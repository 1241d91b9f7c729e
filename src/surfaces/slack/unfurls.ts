// Switchboard links pasted into Slack, previewed as Work Objects
// (work-objects.ts). Slack sends `link_shared` for a message with links to the
// app's unfurl domain (the manifest's `unfurl_domains`: PUBLIC_URL's host); the
// request is stored like every event (receiver.ts) and this listener answers
// with chat.unfurl from the inbound.slack job. Whoever reads the channel reads
// the preview, so it shows the item only when they may all see it
// (LinkPreviewService); Approve and Reject only when the person who shared the
// link may decide. Opening the preview (`entity_details_requested`) answers with
// entity.presentDetails, its buttons for the person who opened it. A previewed
// approval is kept as one of its views, so deciding it anywhere refreshes the
// preview (approval-jobs.ts); other items refresh when someone refreshes or
// opens the preview, as Slack does on its own.
import { DeliveryError } from '../../core/delivery/failure.ts';
import { pacedCall } from '../../core/delivery/pacer.ts';
import type { SwitchboardLink } from '../../core/previews/links.ts';
import type { LinkPreview, PreviewReaders, PreviewRequest } from '../../core/previews/preview-service.ts';
import { notInstalled } from './errors.ts';
import type { SlackListeners } from './event-listeners.ts';
import { call } from './outbound.ts';
import { SLACK, workspaceOf, type SlackRuntime } from './runtime.ts';
import { workObject } from './work-objects.ts';

/** A previewed approval's view (approval_views): where the preview is, the link as shared, and who shared it. */
export interface UnfurlRef {
  team: string;
  channel: string;
  ts: string;
  /** The link as it was shared. */
  unfurl: string;
  /** The Slack user who shared it (the buttons are theirs to use, when they may decide). */
  poster: string;
}

/** Whether an approval view is a link preview rather than a card the app posted. */
export const isUnfurlView = (ref: Record<string, string>) => typeof ref.unfurl === 'string';

/**
 * Who reads a preview in this channel: its members (the app's own DM is the person in it); unknown (null) for a DM
 * or group DM the app is not in, whose members Slack does not tell it.
 */
function readersIn(teamId: string, channel: string, appIsMember: boolean | undefined): PreviewReaders | null {
  if (channel.startsWith('D') && appIsMember === false) return null;
  return { kind: 'channel', surface: SLACK.surface, tenantId: teamId, channelId: channel };
}

/** The request for previews in a team: its workspace, the readers, and the Slack user who shared or opened the link. */
async function requestFor(
  rt: SlackRuntime,
  teamId: string,
  user: string,
  readers: PreviewReaders | null,
): Promise<PreviewRequest | null> {
  if (!readers) return null;
  const found = await workspaceOf(rt, teamId);
  const identity = await rt.identities.find({ surface: SLACK.surface, tenantId: teamId, externalUserId: user });
  return {
    workspaceId: found?.workspace?.id ?? null,
    readers,
    viewer: { personId: identity?.personId ?? null, identityId: identity?.id ?? null },
  };
}

/** The preview of a link, or only its title when nothing may be shown (readers unknown). */
const previewOf = (rt: SlackRuntime, link: SwitchboardLink, req: PreviewRequest | null): Promise<LinkPreview> =>
  req ? rt.core.previews.preview(link, req) : Promise.resolve({ kind: 'hidden', link });

/** Runs a Web API call for a preview: a refusal retrying cannot fix is logged and dropped, anything else retried. */
async function tryCall(rt: SlackRuntime, what: string, fn: () => Promise<unknown>): Promise<boolean> {
  try {
    await call(fn);
    return true;
  } catch (e) {
    if (e instanceof DeliveryError && e.failure.kind === 'permanent') {
      rt.logger.warn({ reason: e.failure.reason }, `Slack refused ${what}; the link shows as Slack shows it`);
      return false;
    }
    throw e;
  }
}

export function registerUnfurls(bolt: SlackListeners, rt: SlackRuntime): void {
  bolt.event('link_shared', async ({ event, context, client }) => {
    const teamId = context.teamId;
    // While the message is being written Slack does not say where it will go, so who reads the preview is unknown:
    // it is previewed once posted.
    if (!teamId || event.source === 'composer' || event.channel === 'COMPOSER') return;
    const links = [...new Map(event.links.map((l) => [l.url, rt.core.previews.parse(l.url)])).entries()].flatMap(
      ([posted, link]) => (link ? [{ posted, link }] : []),
    );
    // Only links to one item of this Switchboard; any other link is left as Slack shows it.
    if (!links.length) return;
    const req = await requestFor(rt, teamId, event.user, readersIn(teamId, event.channel, event.is_bot_user_member));
    const previews = await Promise.all(links.map(async (l) => ({ ...l, preview: await previewOf(rt, l.link, req) })));
    const done = await tryCall(rt, 'a link preview', () =>
      client.chat.unfurl({
        channel: event.channel,
        ts: event.message_ts,
        metadata: { entities: previews.map((p) => workObject(p.preview, p.posted)) },
      }),
    );
    if (!done) return;
    for (const { posted, preview } of previews) {
      if (preview.kind !== 'approval') continue;
      const ref: UnfurlRef = {
        team: teamId,
        channel: event.channel,
        ts: event.message_ts,
        unfurl: posted,
        poster: event.user,
      };
      await rt.core.approvals.addView({ approvalId: preview.approval.id, surface: SLACK.surface, ref: { ...ref } });
    }
  });

  bolt.event('entity_details_requested', async ({ event, context, client }) => {
    const teamId = context.teamId;
    const posted = event.app_unfurl_url ?? event.entity_url;
    const link = posted ? rt.core.previews.parse(posted) : null;
    if (!teamId || !link) return;
    // The pane shows what the preview shows (Slack writes it back into the preview); only the buttons are the opener's.
    const readers = event.channel
      ? readersIn(teamId, event.channel, undefined)
      : await openerAlone(rt, teamId, event.user);
    const preview = await previewOf(rt, link, await requestFor(rt, teamId, event.user, readers));
    await tryCall(rt, 'the details of a link preview', () =>
      client.entity.presentDetails({ trigger_id: event.trigger_id, metadata: workObject(preview, null) }),
    );
  });
}

/** The person who opened a preview, alone (no channel named: the details pane is theirs only). */
async function openerAlone(rt: SlackRuntime, teamId: string, user: string): Promise<PreviewReaders> {
  const identity = await rt.identities.find({ surface: SLACK.surface, tenantId: teamId, externalUserId: user });
  return { kind: 'people', personIds: [identity?.personId ?? null] };
}

/**
 * Draws an approval's preview again where it was shared (the approval changed): for the channel's readers as they are
 * now, its buttons for the person who shared it. Throws a DeliveryError when Slack refuses, for the update job.
 */
export async function refreshUnfurl(rt: SlackRuntime, ref: UnfurlRef): Promise<void> {
  const link = rt.core.previews.parse(ref.unfurl);
  if (!link) return;
  const creds = await rt.installations.credentials(ref.team);
  if (!creds) throw notInstalled(ref.team);
  const req = await requestFor(rt, ref.team, ref.poster, readersIn(ref.team, ref.channel, true));
  const preview = await previewOf(rt, link, req);
  const client = rt.clients.for(creds.token);
  await pacedCall(rt.pacer, `${ref.team}:${ref.channel}`, () =>
    call(() =>
      client.chat.unfurl({
        channel: ref.channel,
        ts: ref.ts,
        metadata: { entities: [workObject(preview, ref.unfurl)] },
      }),
    ),
  );
}
