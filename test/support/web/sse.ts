import type { HttpBrowser } from './browser.ts';

export interface SseEvent {
  event: string;
  data: any;
}

/** Reads the chat's event stream as a browser would; `next` waits for the next event matching a test, `keepalives` for keepalives. */
export async function openEvents(b: HttpBrowser, workspace: string) {
  const controller = new AbortController();
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${b.base}/api/chat/w/${workspace}/events`, {
    headers: { cookie, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (res.status !== 200) throw new Error(`event stream refused: ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  let keepalives = 0;
  let buffer = '';
  const pump = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: data ? JSON.parse(data) : null });
          if (block === ': keepalive') keepalives++;
          waiters.splice(0).forEach((w) => w());
        }
      }
    } catch {
      /* aborted */
    }
  })();
  /** Resolves with what `found` returns once it returns something, checking again with every block the stream sends. */
  const until = <T>(found: () => T | undefined, timeoutMs: number, missing: () => string) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(missing())), timeoutMs);
      const check = () => {
        const value = found();
        if (value !== undefined) {
          clearTimeout(timer);
          resolve(value);
        } else waiters.push(check);
      };
      check();
    });
  const stream = {
    events,
    /** Resolves with the first event (already received or coming) that matches. */
    next: (match: (e: SseEvent) => boolean, timeoutMs = 10_000): Promise<SseEvent> =>
      until(
        () => events.find(match),
        timeoutMs,
        () => `no matching event; got ${events.map((e) => e.event).join(', ')}`,
      ),
    /** Resolves once `count` more keepalives came (the server ran its checks before sending each). */
    keepalives: (count: number, timeoutMs = 10_000): Promise<true> => {
      const target = keepalives + count;
      return until(
        () => (keepalives >= target ? true : undefined),
        timeoutMs,
        () => `${target - keepalives} keepalive(s) short`,
      );
    },
    /** Resolves when the server ends the stream (or it is closed here). */
    ended: pump,
    async close() {
      controller.abort();
      await pump;
    },
  };
  await stream.next((e) => e.event === 'ready');
  return stream;
}
