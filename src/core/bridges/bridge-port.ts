// The port through which bridged channels reach the bridged side. Each surface
// module that can be bridged registers one (BridgeService.register); the core
// names no surface, it looks the port up by the bridge's `surface`.
import type { SurfaceOutbound } from '../delivery/surface-outbound.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import type { Workspace } from '../entities.ts';

/** An outside channel as a surface reaches it from a workspace. */
export interface BridgeTarget {
  tenantId: string;
  externalChannelId: string;
  /** Where the surface posts into the channel (its own address format, as conversations keep it). */
  externalRef: Record<string, string>;
  /** Its name as people know it ("#general"); empty when the platform does not say. */
  title: string;
}

/**
 * One surface's side of bridged channels. The outbound members (SurfaceOutbound)
 * post a mirror under its author's name (`post`, the sender carrying the name),
 * change or remove it later (`update`, `remove`), and give the address of a
 * thread under one of the platform's messages (`threadAddress`); like the rest
 * of that port they throw DeliveryError for a failed platform call.
 */
export interface BridgePort extends SurfaceOutbound {
  /** The surface it bridges to; a bridge's `surface` names it. */
  readonly surface: ExternalSurface;
  /** How a channel id looks there, for forms and hints ("C0123ABCD"). */
  readonly channelExample: string;
  /**
   * The channel as the app reaches it from this workspace. Throws a
   * SwitchboardError saying why when it cannot: the workspace is not connected
   * to the platform, the id is malformed, or the app is not in that channel.
   */
  resolveChannel(workspace: Workspace, externalChannelId: string): Promise<BridgeTarget>;
  /**
   * Gives (`on`) or takes back the app's own reaction `emoji` (a short name,
   * `thumbsup`) on one of the channel's messages; it being so already is no
   * failure. Absent when the platform lets no bot react (Teams).
   */
  react?(channelRef: Record<string, string>, externalId: string, emoji: string, on: boolean): Promise<void>;
}
