import type { HttpBrowser } from './browser.ts';

export interface SseEvent { event: string; data: any }

/** Reads the chat's event stream as a browser would; `next` waits for the next event matching a test. */
export async function openEvents(b: HttpBrowser, workspace: string) {
  const controller = new AbortController();
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await fetch(`${b.base}/api/chat/w/${workspace}/events`, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`event stream refused: ${res.status} ${await res.text()}`);
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
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
          waiters.splice(0).forEach((w) => w());
        }
      }
    } catch { /* aborted */ }
  })();
  const stream = {
    events,
    /** Resolves with the first event (already received or coming) that matches. */
    async next(match: (e: SseEvent) => boolean, timeoutMs = 10_000): Promise<SseEvent> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event; got ${events.map((e) => e.event).join(', ')}`)), timeoutMs);
        const check = () => {
          const found = events.find(match);
          if (found) { clearTimeout(timer); resolve(found); } else waiters.push(check);
        };
        check();
      });
    },
    /** Resolves when the server ends the stream (or it is closed here). */
    ended: pump,
    async close() { controller.abort(); await pump; },
  };
  await stream.next((e) => e.event === 'ready');
  return stream;
}
