// Draws the Teams app icons (manifests/teams/color.png, 192x192, and
// outline.png, 32x32 white on transparent, as Teams requires) as PNGs with
// node:zlib alone, so they can be redrawn anywhere: `npx tsx manifests/teams/make-icons.ts`.
// The motif is three switch rows, each a bar with a knob at a different place.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';

type Rgba = [number, number, number, number];
/** Coverage (0..1) of a shape at a point, in a 1x1 design space. */
type Shape = (x: number, y: number) => boolean;

const roundedRect =
  (x0: number, y0: number, x1: number, y1: number, r: number): Shape =>
  (x, y) => {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const cx = Math.min(Math.max(x, x0 + r), x1 - r);
    const cy = Math.min(Math.max(y, y0 + r), y1 - r);
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
  };
const circle =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

/** The three switch rows: bars with knobs, in the design space's central square. */
function motif(inset: number): { bars: Shape[]; knobs: Shape[] } {
  const span = 1 - 2 * inset;
  const at = (v: number) => inset + v * span;
  const rows = [0.2, 0.5, 0.8];
  const knobAt = [0.3, 0.72, 0.45];
  return {
    bars: rows.map((r) => roundedRect(at(0.02), at(r) - span * 0.045, at(0.98), at(r) + span * 0.045, span * 0.045)),
    knobs: rows.map((r, i) => circle(at(knobAt[i]!), at(r), span * 0.13)),
  };
}

/** Renders `paint` (which returns the colour at a point, or null for transparent) with 4x4 supersampling. */
function render(size: number, paint: (x: number, y: number) => Rgba | null): Buffer {
  const samples = 4;
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let py = 0; py < size; py += 1) {
    raw[py * (size * 4 + 1)] = 0; // filter: none
    for (let px = 0; px < size; px += 1) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < samples; sy += 1) {
        for (let sx = 0; sx < samples; sx += 1) {
          const c = paint((px + (sx + 0.5) / samples) / size, (py + (sy + 0.5) / samples) / size);
          if (!c) continue;
          const alpha = c[3] / 255;
          r += c[0] * alpha;
          g += c[1] * alpha;
          b += c[2] * alpha;
          a += alpha;
        }
      }
      const n = samples * samples;
      const o = py * (size * 4 + 1) + 1 + px * 4;
      raw[o] = a ? Math.round(r / a) : 0;
      raw[o + 1] = a ? Math.round(g / a) : 0;
      raw[o + 2] = a ? Math.round(b / a) : 0;
      raw[o + 3] = Math.round((a / n) * 255);
    }
  }
  return png(size, raw);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}

function png(size: number, raw: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const INDIGO: Rgba = [79, 70, 229, 255];
const WHITE: Rgba = [255, 255, 255, 255];
const PALE: Rgba = [199, 196, 250, 255];

export function colorIcon(): Buffer {
  const background = roundedRect(0, 0, 1, 1, 0.22);
  const { bars, knobs } = motif(0.22);
  return render(192, (x, y) => {
    if (!background(x, y)) return null;
    if (knobs.some((k) => k(x, y))) return WHITE;
    if (bars.some((b) => b(x, y))) return PALE;
    return INDIGO;
  });
}

export function outlineIcon(): Buffer {
  const { bars, knobs } = motif(0.06);
  return render(32, (x, y) => (knobs.some((k) => k(x, y)) || bars.some((b) => b(x, y)) ? WHITE : null));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const dir = path.dirname(fileURLToPath(import.meta.url));
  writeFileSync(path.join(dir, 'color.png'), colorIcon());
  writeFileSync(path.join(dir, 'outline.png'), outlineIcon());
  console.log(`Wrote ${path.join(dir, 'color.png')} (192x192) and ${path.join(dir, 'outline.png')} (32x32).`);
}
