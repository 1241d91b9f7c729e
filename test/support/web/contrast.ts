// WCAG 2.x contrast of what a page shows, measured in the browser: every
// visible button, and every text drawn in a muted colour (the value of
// --muted or --side-muted in the current theme), against the background it
// actually sits on (the nearest backgrounds behind it, blended).
import type { Page } from 'playwright-core';

export interface ContrastFinding {
  what: string;
  text: string;
  fg: string;
  bg: string;
  ratio: number;
}

// A string, not a function: the test runner's transform would add helpers the page does not have.
const AUDIT = String.raw`(() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const rgba = (css) => {
    canvas.fillStyle = '#000'; canvas.fillStyle = css;
    const v = canvas.fillStyle;
    if (v.startsWith('#')) return [parseInt(v.slice(1, 3), 16), parseInt(v.slice(3, 5), 16), parseInt(v.slice(5, 7), 16), 1];
    const n = v.match(/[\d.]+/g).map(Number);
    return [n[0], n[1], n[2], n[3] ?? 1];
  };
  const over = (top, under) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
  };
  const lum = (c) => {
    const [r, g, b] = c.slice(0, 3).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    let bg = [255, 255, 255, 1];
    if (!layers.length || layers[layers.length - 1][3] < 1) bg = rgba(getComputedStyle(document.documentElement).backgroundColor || '#fff');
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const shown = (el) => {
    if (!el.getClientRects().length || el.closest('.visually-hidden, [hidden], [aria-hidden=true]')) return false;
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.visibility === 'hidden' || Number(s.opacity) < 1 || s.display === 'none') return false;
    }
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1;
  };
  const probe = document.createElement('span');
  document.body.append(probe);
  const muted = ['--muted', '--side-muted'].map((v) => { probe.style.color = 'var(' + v + ')'; return getComputedStyle(probe).color; });
  probe.remove();
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const out = [];
  const seen = new Set();
  const check = (el, kind) => {
    if (seen.has(el) || !shown(el)) return;
    seen.add(el);
    const s = getComputedStyle(el);
    const bg = background(el);
    const fg = over(rgba(s.color), bg);
    out.push({ what: kind + ' ' + describe(el), text: el.textContent.trim().slice(0, 40), fg: s.color, bg: 'rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + ')', ratio: Math.round(ratio(fg, bg) * 100) / 100 });
  };
  for (const el of document.querySelectorAll('button, .button, [role=tab], summary')) if (el.textContent.trim()) check(el, 'button');
  for (const el of document.querySelectorAll('body *')) if (ownText(el) && muted.includes(getComputedStyle(el).color)) check(el, 'muted');
  return out;
})()`;

/** Every button and muted text the page shows now, with its contrast ratio. */
export async function contrastOf(page: Page): Promise<ContrastFinding[]> {
  return page.evaluate(AUDIT) as Promise<ContrastFinding[]>;
}
