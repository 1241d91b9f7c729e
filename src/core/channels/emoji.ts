// Reaction emoji by short name: what the web chat offers and how it draws the
// names chat platforms send. Pure data, shared with the browser code.

/** The emoji the web chat offers (Slack's short names). */
export const PALETTE = ['thumbsup', 'heart', 'joy', 'tada', 'eyes', 'white_check_mark'] as const;

/** A short name as chat platforms send them: lowercase letters, digits, `_`, `+`, `-`, `'`. */
export const EMOJI_NAME = /^[a-z0-9+][a-z0-9_+'-]{0,63}$/;

const GLYPHS: Record<string, string> = {
  thumbsup: '👍',
  '+1': '👍',
  thumbsdown: '👎',
  '-1': '👎',
  heart: '❤️',
  joy: '😂',
  laughing: '😆',
  smile: '😄',
  tada: '🎉',
  eyes: '👀',
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  rocket: '🚀',
  fire: '🔥',
  pray: '🙏',
  clap: '👏',
  open_mouth: '😮',
  cry: '😢',
  angry: '😠',
  thinking_face: '🤔',
  raised_hands: '🙌',
  ok_hand: '👌',
  wave: '👋',
  sparkles: '✨',
  star: '⭐',
  '100': '💯',
};

/** The emoji for a short name, or `:name:` when it is not one this list knows (a workspace's custom emoji). */
export const glyphOf = (name: string): string => GLYPHS[name] ?? `:${name}:`;
