/**
 * Reads a QR code the web UI drew as SVG (`kit/qr-code.tsx`) the way a phone does: the SVG's rectangles
 * painted into pixels, then decoded by jsQR. Only the path commands the kit writes are read
 * (`M x y h w v1 h -w z`); anything else fails the test.
 */
import { createRequire } from 'node:module';
import type { QRCode } from 'jsqr';

// jsqr is a CommonJS bundle whose typings declare an ES default export: required, typed by hand.
const jsQR = createRequire(import.meta.url)('jsqr') as (
  data: Uint8ClampedArray,
  width: number,
  height: number,
) => QRCode | null;

export function decodeQrSvg(svg: { viewBox: string; path: string }): string | undefined {
  const side = Number(svg.viewBox.split(' ')[2]);
  const scale = 4;
  const width = side * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  const runs = svg.path.match(/M\d+ \d+h\d+v1h-\d+z/g) ?? [];
  if (runs.join('') !== svg.path) throw new Error(`unexpected path commands in ${svg.path.slice(0, 80)}`);
  for (const run of runs) {
    const [x, y, w] = run.match(/\d+/g)!.map(Number) as [number, number, number];
    for (let py = y * scale; py < (y + 1) * scale; py++) {
      for (let px = x * scale; px < (x + w) * scale; px++)
        pixels.fill(0, (py * width + px) * 4, (py * width + px) * 4 + 3);
    }
  }
  return jsQR(pixels, width, width)?.data;
}
