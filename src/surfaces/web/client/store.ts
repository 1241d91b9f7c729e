// The chat's client state, in one place. Views read it and re-render when it
// changes; nothing is read back from the DOM.
import type { MessageOpts } from './messages.ts';
import type {
  Approval,
  ChannelSettingsView,
  ConversationInfo,
  Me,
  Mentionable,
  MessageView,
  SidebarView,
} from './types.ts';

export type ViewName = 'conversation' | 'inbox' | 'agents' | 'search' | 'intake' | 'approval' | 'settings';

/** A conversation on screen (the main column or the thread panel), the messages it shows and where. */
export interface OpenConversation {
  conversation: ConversationInfo;
  /** By id, in the order they arrived. */
  messages: Map<string, MessageView>;
  /** The list element showing them, and how its messages are drawn. */
  list: HTMLElement;
  opts: MessageOpts;
}

export interface ChatState {
  me: Me | null;
  /** The workspace slug being looked at. */
  ws: string | null;
  sidebar: SidebarView | null;
  /** Agents and people of the workspace, for @mentions and new DMs. */
  directory: Mentionable[];
  /** The signed-in person's own agent (how they write) in this workspace. */
  meAgentId: string | null;
  view: ViewName | null;
  main: OpenConversation | null;
  thread: OpenConversation | null;
  /** Message ids already shown, so one arriving live and as a post answer shows once. */
  seen: Set<string>;
  /** Who listens to the open channel and what it is bridged with; null when no channel is open. */
  channelSettings: ChannelSettingsView | null;
  /** Approvals settled while the page was open, so the inbox keeps showing how they ended. */
  settled: Map<string, { ws: string; card: Approval }>;
  /** Reasons typed on approval cards not yet decided, by approval id: a card redrawn meanwhile keeps its reason. */
  reasonDrafts: Map<string, string>;
}

type Listener = (state: ChatState, changed: ReadonlySet<keyof ChatState>) => void;

/** Holds the state; `update` merges a change and tells every subscriber which keys changed. */
export class Store {
  private current: ChatState = {
    me: null,
    ws: null,
    sidebar: null,
    directory: [],
    meAgentId: null,
    view: null,
    main: null,
    thread: null,
    seen: new Set(),
    settled: new Map(),
    reasonDrafts: new Map(),
    channelSettings: null,
  };
  private readonly listeners = new Set<Listener>();

  get state(): Readonly<ChatState> {
    return this.current;
  }

  update(patch: Partial<ChatState>): void {
    this.current = { ...this.current, ...patch };
    const changed = new Set(Object.keys(patch) as Array<keyof ChatState>);
    for (const fn of this.listeners) fn(this.current, changed);
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** The open conversation (main column or thread panel) with this id, if any. */
  open(conversationId: string): OpenConversation | null {
    const { main, thread } = this.current;
    if (main?.conversation.id === conversationId) return main;
    if (thread?.conversation.id === conversationId) return thread;
    return null;
  }

  /** A conversation's messages as the server sent them, shown in `list`. */
  static opened(
    data: { conversation: ConversationInfo; messages: MessageView[] },
    list: HTMLElement,
    opts: MessageOpts,
  ): OpenConversation {
    return { conversation: data.conversation, messages: new Map(data.messages.map((m) => [m.id, m])), list, opts };
  }
}

/** The one store of the page. */
export const store = new Store();
