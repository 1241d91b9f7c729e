// The stand-in's link preview methods: chat.unfurl (classic `unfurls` or Work
// Object `metadata`) and entity.presentDetails (a Work Object's details pane),
// with the argument checks and error codes Slack documents for them
// (https://docs.slack.dev/reference/methods/chat.unfurl,
// https://docs.slack.dev/reference/methods/entity.presentDetails). Every call is
// recorded with its arguments (callsTo), so tests read the previews there; an
// unfurl is kept on its message as `unfurls` too.
import {
  fail,
  resolveChannel,
  str,
  type MethodContext,
  type MethodHandler,
  type SlackResult,
} from './web-api-methods.ts';

const missing = (field: string): SlackResult =>
  fail('invalid_arguments', { response_metadata: { messages: [`[ERROR] missing required field: ${field}`] } });

function needsLinksWrite({ identity }: MethodContext): SlackResult | null {
  return identity!.scope.split(',').includes('links:write')
    ? null
    : fail('missing_scope', { needed: 'links:write', provided: identity!.scope });
}

/** Work Object entities as chat.unfurl takes them: each names the URL it previews, and has a type, a title and a reference. */
function badEntity(entities: unknown, unfurl: boolean): string | null {
  if (!Array.isArray(entities) || !entities.length) return 'metadata.entities';
  for (const [i, e] of entities.entries()) {
    const entity = e as Record<string, unknown>;
    const attributes = (entity.entity_payload as { attributes?: { title?: { text?: unknown } } } | undefined)
      ?.attributes;
    if (unfurl && typeof entity.app_unfurl_url !== 'string') return `metadata.entities[${i}].app_unfurl_url`;
    if (typeof entity.entity_type !== 'string') return `metadata.entities[${i}].entity_type`;
    if (typeof entity.url !== 'string') return `metadata.entities[${i}].url`;
    if (typeof (entity.external_ref as { id?: unknown } | undefined)?.id !== 'string')
      return `metadata.entities[${i}].external_ref.id`;
    if (typeof attributes?.title?.text !== 'string') return `metadata.entities[${i}].entity_payload.attributes.title`;
  }
  return null;
}

export const UNFURL_METHODS: Record<string, MethodHandler> = {
  'chat.unfurl': (ctx) => {
    const scope = needsLinksWrite(ctx);
    if (scope) return scope;
    const { args, state } = ctx;
    const unfurlId = str(args.unfurl_id);
    const channel = resolveChannel(str(args.channel));
    const ts = str(args.ts);
    if (!unfurlId && !(channel && ts)) return missing('channel and ts, or unfurl_id and source');
    if (unfurlId && !str(args.source)) return missing('source');
    const metadata = args.metadata as { entities?: unknown } | undefined;
    if (!args.unfurls && !metadata) return fail('missing_unfurls');
    if (metadata) {
      const bad = badEntity(metadata.entities, true);
      if (bad) return fail('invalid_metadata', { response_metadata: { messages: [`[ERROR] invalid field: ${bad}`] } });
    }
    if (channel && ts) {
      const message = state.message(channel, ts);
      if (!message) return fail('cannot_find_message');
      state.storeMessage(channel, { ...message, unfurls: metadata ?? args.unfurls });
    }
    return { ok: true };
  },

  'entity.presentDetails': (ctx) => {
    const { args } = ctx;
    if (!str(args.trigger_id)) return missing('trigger_id');
    const metadata = args.metadata as Record<string, unknown> | undefined;
    if (!metadata && !args.error) return missing('metadata');
    if (metadata) {
      const bad = badEntity([metadata], false);
      if (bad) return fail('invalid_metadata', { response_metadata: { messages: [`[ERROR] invalid field: ${bad}`] } });
    }
    return { ok: true };
  },
};
