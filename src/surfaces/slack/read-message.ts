// Reading a Slack message into Markdown needs the names behind the ids it
// mentions. Labels Slack wrote into the text come first, then the people
// Switchboard already knows, and only then users.info (people) and
// conversations.info (channels, cached); a name that cannot be read leaves the
// id in place rather than holding the message back.
import type { webApi } from '@slack/bolt';
import { loggable } from './errors.ts';
import {
  labelsInText,
  referencedIds,
  slackToMarkdown,
  type SlackMarkdown,
  type SlackMessageText,
} from './format/in.ts';
import { readProfile } from './identities.ts';
import type { SlackRuntime } from './runtime.ts';

/** The message as agents receive it (Markdown, names for ids, the app's own mention removed) and the agents it names. */
export async function readSlackMessage(
  rt: SlackRuntime,
  client: webApi.WebClient,
  teamId: string,
  m: SlackMessageText,
  botUserId: string | undefined,
): Promise<SlackMarkdown> {
  const names = labelsInText(m.text);
  const users = new Map(names.users);
  const referenced = referencedIds(m);
  const missing = referenced.users.filter((id) => id !== botUserId && !users.has(id));
  const unlabelled = referenced.channels.filter((id) => !names.channels.has(id));
  const looked = unlabelled.length ? rt.channelNames.lookup(client, teamId, unlabelled) : null;
  if (missing.length) {
    for (const i of await rt.identities.findMany('slack', teamId, missing)) users.set(i.externalUserId, i.displayName);
    await Promise.all(
      missing
        .filter((id) => !users.has(id))
        .map(async (id) => {
          try {
            users.set(id, (await readProfile(client, id, rt.core.clock.now())).displayName);
          } catch (err) {
            rt.logger.warn(
              { err: loggable(err), teamId, userId: id },
              'could not read the name of a mentioned Slack user',
            );
          }
        }),
    );
  }
  const channels = looked ? new Map([...names.channels, ...(await looked)]) : names.channels;
  return slackToMarkdown(m, { users, channels }, botUserId);
}
