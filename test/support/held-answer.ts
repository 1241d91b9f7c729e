// A platform that is slow to answer: a stand-in does the work of a call (a post
// is stored), then holds its answer until the test releases it, so a test can
// make something happen in between without sleeping.

/** A call whose answer is held back: the work is done, the caller waits until `release()`. */
export interface HeldAnswer<C> {
  /** Resolves with the call once it arrived and its answer is held. */
  reached: Promise<C>;
  release(): void;
}

/** A held answer (the test's side) and the stand-in's side of it (`reached` to call, `released` to wait for). */
export function heldAnswer<C>() {
  let reached!: (c: C) => void;
  let release!: () => void;
  const arrived = new Promise<C>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const answer: HeldAnswer<C> = { reached: arrived, release };
  return { answer, hold: { reached, released } };
}
