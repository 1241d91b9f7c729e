import type { Mount } from '../http.ts';

/** `/`, `/signin`, `/link/:nonce` and the web chat API (filled in by the web chat issue). */
export const mountWebChat: Mount = () => {};
