// Teams posts that are not an agent's message (approval cards, the link
// confirmation) go through the post record (surface_posts) like Slack's
// (src/core/delivery/keyed-post.ts): the attempt is counted before the Bot
// Connector is called and the activity id recorded after, so a retry after a
// recorded post never posts again, and a database that is briefly away is
// waited for with the id kept in memory.
//
// Unlike Slack, Teams cannot be searched for an earlier post (see outbound.ts),
// and nothing can be updated or deleted without its id. So a retry that finds an
// attempt with no recorded id (the process died between Teams accepting the
// post and the id being stored, a few milliseconds) posts again and says so in
// the log: a duplicate is possible in that window, a loss is not.
import type { Activity } from 'botbuilder';
import { postOncePerKey } from '../../core/delivery/keyed-post.ts';
import type { TeamsAddress } from './thread-id.ts';
import { postActivity } from './connector.ts';
import type { TeamsRuntime } from './runtime.ts';

/**
 * Posts `activity` into `address` unless a post was already recorded for `key`; returns its activity id.
 * Bot Connector failures come back as DeliveryError (connector.ts), database ones as the store's.
 */
export async function postOnce(
  rt: TeamsRuntime,
  key: string,
  address: TeamsAddress,
  activity: Partial<Activity>,
  signal?: AbortSignal,
): Promise<string> {
  return postOncePerKey(
    rt.core.posts,
    'teams',
    key,
    {
      async find() {
        rt.logger.warn(
          { key },
          'an earlier Teams post attempt has no recorded outcome and Teams cannot be searched; posting again',
        );
        return null;
      },
      post: () => postActivity(rt, address, activity),
    },
    signal,
  );
}
