// Bridged channels: a web chat channel linked to a Slack or a Teams channel,
// and the persistent map of which message on one side is which on the other.
import type { ExternalSurface } from '../surfaces/surface-ports.ts';

/** A web channel linked to one outside channel; every side mirrors every other. */
export interface Bridge {
  id: string;
  workspaceId: string;
  /** The web channel's conversation id. */
  channelId: string;
  surface: ExternalSurface;
  /** The Slack team or Teams tenant. */
  tenantId: string;
  /** The Slack channel id (C…) or the Teams channel's conversation id (19:…). */
  externalChannelId: string;
  /** Where the surface posts (its own address format, as conversations keep it). */
  externalRef: Record<string, string>;
  /** The outside channel's name as people know it ("#general"), when the platform told us. */
  title: string;
  /** The owner allowed a restricted web channel's messages into the outside channel. */
  allowPrivate: boolean;
  createdBy: string | null;
  createdAt: Date;
}

export type NewBridge = Omit<Bridge, 'id' | 'createdAt'>;

/** One row of the message map: a web message and its counterpart on the bridged side. */
export interface BridgedMessage {
  bridgeId: string;
  messageId: string;
  /** The platform's id (Slack ts, Teams activity id); null while our post of it is under way. */
  externalId: string | null;
  /** True when the message was written on that side; false for our mirror of a message written elsewhere. */
  inbound: boolean;
}

export interface BridgeRepo {
  /** Throws CONFLICT when the web channel already has a bridge to that surface or the outside channel is bridged already (BridgeService checks first, for its sentence). */
  create(b: NewBridge): Promise<Bridge>;
  /** Null when absent or in another workspace. */
  get(workspaceId: string, id: string): Promise<Bridge | null>;
  /** The bridge of an outside channel; null when it is not bridged. */
  byExternal(surface: ExternalSurface, tenantId: string, externalChannelId: string): Promise<Bridge | null>;
  /** The bridges of a web channel (none, one per surface). */
  forChannel(workspaceId: string, channelId: string): Promise<Bridge[]>;
  /** Every bridge of the workspace, oldest first. */
  list(workspaceId: string): Promise<Bridge[]>;
  /** False when there was no such bridge. Its message map goes with it. */
  remove(workspaceId: string, id: string): Promise<boolean>;

  /** Records a message written on the bridged side (idempotent). */
  recordInbound(bridgeId: string, messageId: string, externalId: string): Promise<void>;
  /**
   * Records that posting our mirror of the message starts now, before the call;
   * returns when an earlier attempt started whose outcome was never recorded, else null.
   * Returns `'posted'` when it was posted already.
   */
  notePost(bridgeId: string, messageId: string, at: Date): Promise<Date | 'posted' | null>;
  /**
   * Records the platform's id of our mirror (an id recorded already is kept); false when its row is gone: the message
   * was deleted while the mirror was being posted.
   */
  recordPosted(bridgeId: string, messageId: string, externalId: string): Promise<boolean>;
  /** The web message behind a platform id on this bridge; null when unknown. */
  byExternalId(bridgeId: string, externalId: string): Promise<BridgedMessage | null>;
  /**
   * Every counterpart of a web message, one per bridge. With `lock`, inside a transaction, the rows are held until it
   * ends: a delete reads them so, and a mirror's id recorded meanwhile is either read here or finds its row gone.
   */
  counterparts(messageId: string, lock?: boolean): Promise<BridgedMessage[]>;
}
