// The Bot Connector REST API (`{serviceUrl}v3/conversations…`) as Teams serves
// it to a bot: create a conversation (a personal chat, or a new thread in a
// channel), send to a conversation, reply in a reply chain, update and delete
// an activity, and read the members. Every call is recorded; failures are
// queued per operation so a test can make Teams throttle (429 + Retry-After),
// fail transiently (412/502/504) or refuse for good (403 MessageWritesBlocked,
// with the body Teams documents; 404 ConversationNotFound). Messages are
// checked as Teams checks them: streaming (streaming.ts) and AI features
// (ai-content.ts).
import { personalConversationId } from './defaults.ts';
import type { TeamsUserSeed } from './defaults.ts';
import { StreamRules } from './streaming.ts';
import { checkAiContent } from './ai-content.ts';

/** Bot Connector operations, named as botframework-connector's ConnectorClient names them. */
export type ConnectorOp =
  | 'createConversation'
  | 'sendToConversation'
  | 'replyToActivity'
  | 'updateActivity'
  | 'deleteActivity'
  | 'getConversationMembers'
  | 'getConversationMember'
  | 'getConversationPagedMembers';

/** How the next call to an operation fails (once, or `times` times). */
export type ConnectorFailure =
  /** Throttled: HTTP 429 with `Retry-After: <seconds>` when given. */
  (
    | { status: 429; retryAfter?: number }
    /** Transient failures Teams documents as retryable. */
    | { status: 412 | 502 | 504 }
    /** The user blocked or uninstalled the bot: permanent. */
    | { status: 403; code: 'MessageWritesBlocked' }
    /** The conversation is gone (its channel or team deleted): 404 ConversationNotFound. */
    | { status: 404; code: 'ConversationNotFound' }
  ) & { times?: number };

/** An activity as it travels on the wire (JSON), loosely typed. */
export type WireActivity = Record<string, unknown> & { type?: string; id?: string; text?: string; replyToId?: string };

export interface ConnectorCall {
  op: ConnectorOp;
  method: string;
  /** The path under the service URL, decoded: `v3/conversations/<conversationId>/activities/<activityId>`. */
  path: string;
  /** The service URL the bot called (origin plus region path, with trailing slash). */
  serviceUrl: string;
  conversationId?: string;
  /** The activity the URL addresses: replied to, updated or deleted. */
  activityId?: string;
  /** The activity sent (send, reply, update, or the first activity of a new channel thread). */
  activity?: WireActivity;
  /** createConversation's body (ConversationParameters). */
  parameters?: Record<string, unknown>;
  /** The id the stand-in gave what the call created: the new activity, or the new conversation. */
  createdId?: string;
  /** HTTP status answered. */
  status: number;
  /** The app id the caller's token was issued to. */
  appId: string;
  at: Date;
}

let idCounter = 0;
/** Teams activity ids are millisecond timestamps as strings; these only have to be unique and increasing. */
export function nextActivityId(): string {
  idCounter += 1;
  return String(1_760_000_000_000 + idCounter);
}

const errorBody = (code: string, message: string) => ({ error: { code, message } });

/** The body Teams documents for a 403 to a bot that was blocked or uninstalled. */
const MESSAGE_WRITES_BLOCKED = {
  errorCode: 209,
  message:
    '{\r\n  "subCode": "MessageWritesBlocked",\r\n  "details": "Thread is blocked from message writes.",\r\n  "errorCode": null,\r\n  "errorSubCode": null\r\n}',
};

/** What the Bot Connector answers a bot about a conversation it is not a member of. */
const NOT_IN_ROSTER = {
  status: 403,
  body: errorBody('BotNotInConversationRoster', 'The bot is not part of the conversation roster.'),
};

export interface ConnectorReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export class ConnectorState {
  readonly calls: ConnectorCall[] = [];
  private readonly failures = new Map<ConnectorOp, ConnectorFailure[]>();
  /** Activities the bot posted, by conversation then activity id, as last written. */
  private readonly activities = new Map<string, Map<string, WireActivity>>();
  private readonly members = new Map<string, TeamsUserSeed[]>();
  /** Channels (with their reply chains) and chats whose roster the bot is not on. */
  private readonly botAbsent = new Set<string>();
  /** Streams bots sent in personal chats, by stream id. */
  readonly streaming: StreamRules;

  constructor(
    private readonly appId: string,
    private readonly tenantId: string,
    private readonly defaultMembers: TeamsUserSeed[],
    now: () => number = Date.now,
  ) {
    this.streaming = new StreamRules(now);
  }

  failNext(op: ConnectorOp, failure: ConnectorFailure): void {
    const queue = this.failures.get(op) ?? [];
    for (let i = 0; i < (failure.times ?? 1); i += 1) queue.push(failure);
    this.failures.set(op, queue);
  }

  setMembers(conversationId: string, members: TeamsUserSeed[]): void {
    this.members.set(conversationId, members);
  }

  /** Takes the bot off a conversation's roster (a team it was never added to): every call there gets Teams' 403. */
  removeBot(conversationId: string): void {
    this.botAbsent.add(conversationId);
  }

  /** The activity as last sent or updated by the bot, or undefined. */
  activity(conversationId: string, activityId: string): WireActivity | undefined {
    return this.activities.get(conversationId)?.get(activityId);
  }

  /** Every activity the bot posted in a conversation, in order, as last written. */
  conversationActivities(conversationId: string): WireActivity[] {
    return [...(this.activities.get(conversationId)?.values() ?? [])];
  }

  /**
   * Handles `method rest` (rest = path after the service URL, still encoded) for a caller whose
   * token was already accepted. Returns undefined when no operation matches (the caller answers 404).
   */
  handle(method: string, rest: string, serviceUrl: string, body: unknown, appId: string): ConnectorReply | undefined {
    const route = matchRoute(method, rest);
    if (!route) return undefined;
    const call: ConnectorCall = {
      op: route.op,
      method,
      path: decodeURIComponent(rest),
      serviceUrl,
      status: 0,
      appId,
      at: new Date(),
      ...(route.conversationId !== undefined ? { conversationId: route.conversationId } : {}),
      ...(route.activityId !== undefined ? { activityId: route.activityId } : {}),
    };
    if (route.op === 'createConversation') call.parameters = body as Record<string, unknown>;
    else if (isActivityOp(route.op)) call.activity = body as WireActivity;
    this.calls.push(call);

    const failure = this.failures.get(route.op)?.shift();
    const absent =
      route.conversationId !== undefined && this.botAbsent.has(route.conversationId.replace(/;messageid=\d+$/, ''));
    const reply = failure ? failureReply(failure) : absent ? NOT_IN_ROSTER : this.perform(route, call, body);
    call.status = reply.status;
    return reply;
  }

  private perform(route: Route, call: ConnectorCall, body: unknown): ConnectorReply {
    const conversationId = route.conversationId ?? '';
    switch (route.op) {
      case 'createConversation':
        return this.createConversation(call, (body ?? {}) as Record<string, unknown>);
      case 'sendToConversation':
      case 'replyToActivity': {
        const refused =
          checkAiContent(body as WireActivity) ?? this.streaming.check(conversationId, body as WireActivity);
        if (refused) return refused;
        // Every update of a stream, and its final message, rewrite the one message the stream's first activity made.
        const id = this.streaming.record(conversationId, body as WireActivity, nextActivityId());
        this.store(conversationId, id, body as WireActivity);
        call.createdId = id;
        return { status: 201, body: { id } };
      }
      case 'updateActivity': {
        const activityId = route.activityId ?? '';
        if (!this.activities.get(conversationId)?.has(activityId)) {
          return {
            status: 404,
            body: errorBody('NotFound', `Activity ${activityId} was not sent by this bot in this conversation.`),
          };
        }
        const refused = checkAiContent(body as WireActivity) ?? this.streaming.checkUpdate(activityId);
        if (refused) return refused;
        this.store(conversationId, activityId, body as WireActivity);
        return { status: 200, body: { id: activityId } };
      }
      case 'deleteActivity':
        this.activities.get(conversationId)?.delete(route.activityId ?? '');
        return { status: 200 };
      case 'getConversationMembers':
        return { status: 200, body: this.membersOf(conversationId).map((m) => this.account(m)) };
      case 'getConversationPagedMembers':
        return { status: 200, body: { members: this.membersOf(conversationId).map((m) => this.account(m)) } };
      case 'getConversationMember': {
        const member = this.membersOf(conversationId).find(
          (m) => m.id === route.memberId || m.aadObjectId === route.memberId,
        );
        return member
          ? { status: 200, body: this.account(member) }
          : { status: 404, body: errorBody('MemberNotFoundInConversation', 'The member is not in this conversation.') };
      }
    }
  }

  private createConversation(call: ConnectorCall, params: Record<string, unknown>): ConnectorReply {
    const channelData = (params.channelData ?? {}) as { channel?: { id?: string }; tenant?: { id?: string } };
    const activity = params.activity as WireActivity | undefined;
    const channelId = channelData.channel?.id;
    if (channelId) {
      // A new thread in a channel: the conversation is the channel plus the new root message.
      if (!activity)
        return {
          status: 400,
          body: errorBody('BadArgument', 'An activity is required to start a thread in a channel.'),
        };
      const activityId = nextActivityId();
      const id = `${channelId};messageid=${activityId}`;
      this.store(id, activityId, activity);
      call.createdId = id;
      call.activity = activity;
      return { status: 201, body: { id, activityId } };
    }
    const members = (params.members ?? []) as Array<{ id?: string }>;
    const tenant = channelData.tenant?.id ?? (params.tenantId as string | undefined);
    const memberId = members[0]?.id;
    if (members.length !== 1 || !memberId || !tenant) {
      return { status: 400, body: errorBody('BadSyntax', 'Incorrect conversation creation parameters') };
    }
    const id = personalConversationId(memberId, this.appId);
    call.createdId = id;
    if (activity) {
      const activityId = nextActivityId();
      this.store(id, activityId, activity);
      call.activity = activity;
      return { status: 201, body: { id, activityId } };
    }
    return { status: 201, body: { id } };
  }

  private store(conversationId: string, activityId: string, activity: WireActivity): void {
    const byId = this.activities.get(conversationId) ?? new Map<string, WireActivity>();
    byId.set(activityId, { ...activity, id: activityId });
    this.activities.set(conversationId, byId);
  }

  private membersOf(conversationId: string): TeamsUserSeed[] {
    return this.members.get(conversationId) ?? this.defaultMembers;
  }

  /** A member as Teams returns it (TeamsChannelAccount). */
  private account(m: TeamsUserSeed) {
    return {
      id: m.id,
      name: m.name,
      aadObjectId: m.aadObjectId,
      email: m.email,
      userPrincipalName: m.email,
      givenName: m.givenName,
      surname: m.surname,
      tenantId: this.tenantId,
      userRole: 'user',
    };
  }
}

interface Route {
  op: ConnectorOp;
  conversationId?: string;
  activityId?: string;
  memberId?: string;
}

const isActivityOp = (op: ConnectorOp) =>
  op === 'sendToConversation' || op === 'replyToActivity' || op === 'updateActivity';

/** Maps `METHOD v3/conversations/…` (URL-encoded segments) to an operation. */
function matchRoute(method: string, rest: string): Route | undefined {
  const segments = rest.split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  if (segments[0] !== 'v3' || segments[1] !== 'conversations') return undefined;
  const [, , conversationId, collection, itemId, ...extra] = segments;
  if (extra.length > 0) return undefined;
  if (conversationId === undefined) return method === 'POST' ? { op: 'createConversation' } : undefined;
  if (collection === 'activities') {
    if (itemId === undefined) return method === 'POST' ? { op: 'sendToConversation', conversationId } : undefined;
    const ops: Record<string, ConnectorOp> = {
      POST: 'replyToActivity',
      PUT: 'updateActivity',
      DELETE: 'deleteActivity',
    };
    const op = ops[method];
    return op ? { op, conversationId, activityId: itemId } : undefined;
  }
  if (method !== 'GET') return undefined;
  if (collection === 'members') {
    return itemId === undefined
      ? { op: 'getConversationMembers', conversationId }
      : { op: 'getConversationMember', conversationId, memberId: itemId };
  }
  if (collection === 'pagedmembers' && itemId === undefined)
    return { op: 'getConversationPagedMembers', conversationId };
  return undefined;
}

function failureReply(failure: ConnectorFailure): ConnectorReply {
  switch (failure.status) {
    case 429:
      return {
        status: 429,
        headers: failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {},
        body: errorBody('Throttled', 'Too many requests to this conversation; retry after a delay.'),
      };
    case 403:
      return { status: 403, body: MESSAGE_WRITES_BLOCKED };
    case 404:
      return { status: 404, body: errorBody('ConversationNotFound', 'Conversation not found.') };
    case 412:
      return { status: 412, body: errorBody('PreconditionFailed', 'The conversation is being modified; retry.') };
    case 502:
      return { status: 502, body: errorBody('BadGateway', 'Upstream service unavailable.') };
    case 504:
      return { status: 504, body: errorBody('GatewayTimeout', 'Upstream service timed out.') };
  }
}
