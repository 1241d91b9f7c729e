// What email offers for an agent at work: nothing people see while it writes.
// A stream's draft stays in Switchboard's live views (the web chat), and the
// finished message is mailed once, through the same exactly-once send as a post.
import type { SurfaceLive } from '../../core/delivery/surface-outbound.ts';
import { DRAFT, sendOnce } from './outbound.ts';
import type { EmailRuntime } from './runtime.ts';

export function emailLive(rt: EmailRuntime): SurfaceLive {
  return {
    // Mail shows no "is typing".
    setStatus: async () => false,
    // Nothing is mailed yet: the id stands for the draft until the message is finished.
    startStream: async (draft) => ({ externalId: `${DRAFT}${draft.id}`, permalink: null }),
    appendStream: async () => {},
    finishStream: (m) => sendOnce(rt, m),
  };
}
