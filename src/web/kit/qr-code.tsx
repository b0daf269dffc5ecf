/**
 * A QR code as inline SVG, drawn on the server from the `uqr` library's module matrix: no script, no
 * image request, no raw HTML. Dark modules on a white square with a quiet zone, whatever the page's
 * theme (phone cameras read dark on light).
 */
import { encode } from 'uqr';

/** The SVG path of the dark modules: one rectangle per run of dark modules in a row. */
function modulePath(rows: readonly (readonly boolean[])[], border: number): string {
  const parts: string[] = [];
  rows.forEach((row, y) => {
    let x = 0;
    while (x < row.length) {
      if (!row[x]) {
        x++;
        continue;
      }
      const start = x;
      while (x < row.length && row[x]) x++;
      parts.push(`M${start + border} ${y + border}h${x - start}v1h${start - x}z`);
    }
  });
  return parts.join('');
}

/** `text` as a QR code (error correction M), `size` CSS pixels wide, named by `label` for screen readers. */
export function QrCode({ text, label, size = 200 }: { text: string; label: string; size?: number }) {
  const border = 4;
  const { data, size: modules } = encode(text, { ecc: 'M', border: 0 });
  const side = modules + 2 * border;
  return (
    <svg
      class="qr-code"
      xmlns="http://www.w3.org/2000/svg"
      viewBox={`0 0 ${side} ${side}`}
      width={size}
      height={size}
      role="img"
      aria-label={label}
      shape-rendering="crispEdges"
    >
      <rect width={side} height={side} fill="#fff" />
      <path d={modulePath(data, border)} fill="#000" />
    </svg>
  );
}
