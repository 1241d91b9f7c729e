/** What the web chat hears while an agent works in a conversation (published by LiveService). */
export interface LiveEvent {
  conversation_id: string;
  agent_id: string;
  /** The agent's address and display name, for the progress line. */
  agent: string;
  display_name: string;
  /** The status line; null when cleared. */
  status: string | null;
  /** The stream being written (its id is the message's id once stored); null when none. */
  stream: { id: string; text: string; truncated: boolean; done: boolean } | null;
}
