// Where a message was written and by whom, as every view of it says: a chat
// app's name ("via Slack"), and whether a chat user without a linked account
// wrote it (a guest).
import type { Message } from '../messaging/message.ts';
import type { ExternalSurface } from '../surfaces/surface-ports.ts';
import { isChatApp, type SurfaceName } from '../entities.ts';

/** A chat app's name in sentences ("Slack"), as its surface registered it (SurfaceOutbound.label); undefined when this process has none. */
export type SurfaceLabelOf = (surface: ExternalSurface) => string | undefined;
/** Where a message was written, as views show it: a chat app's name, or null for the web chat and agents. */
export type ViaOf = (surface: SurfaceName) => string | null;

/** `ViaOf` over the registered labels; a chat app this process does not know is named by its surface. */
export const viaFrom =
  (labelOf: SurfaceLabelOf): ViaOf =>
  (surface) =>
    isChatApp(surface) ? (labelOf(surface) ?? surface) : null;

/** A message a chat user wrote without a linked account: its sender is the guest agent, its author the identity. */
export const writtenByGuest = (m: Message): m is Message & { askerIdentityId: string } =>
  Boolean(m.askerIdentityId) && m.askerPersonId === null && isChatApp(m.surface);
