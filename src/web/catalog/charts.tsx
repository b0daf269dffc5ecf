/**
 * Bar charts drawn on the server as inline SVG (no script, no style attribute: geometry goes in SVG
 * attributes, colours in app.css's `.chart` rules), each with a table of the same numbers for whoever
 * cannot see the chart.
 */
import type { ComponentChildren } from 'preact';
import { formatCount } from '../kit/format.ts';

export interface Bar {
  label: string;
  value: number;
  /** Extra class of the bar (`sev-critical`). */
  tone?: string;
  /** Where the bar leads (a filtered list). */
  href?: string;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** A step for the value axis: 1, 2 or 5 times a power of ten (counts: at least 1), giving about 4 lines. */
function gridStep(max: number): number {
  if (max <= 4) return 1;
  const raw = max / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

function BarShape({
  bar,
  x,
  y,
  width,
  height,
}: {
  bar: Bar;
  x: number;
  y: number;
  width: number;
  height: number;
}) {
  const rect = (
    <rect
      class={bar.tone ? `bar ${bar.tone}` : 'bar'}
      x={round(x)}
      y={round(y)}
      width={round(width)}
      height={round(height)}
    >
      <title>{`${bar.label}: ${formatCount(bar.value)}`}</title>
    </rect>
  );
  return bar.href ? <a href={bar.href}>{rect}</a> : rect;
}

/** Vertical bars, one per label (years, months): labels below, thinned out when there are many. */
export function ColumnChart({ bars, title, id }: { bars: Bar[]; title: string; id: string }) {
  const width = 720;
  const height = 220;
  const left = 44;
  const bottom = 28;
  const top = 8;
  const plotH = height - bottom - top;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const step = gridStep(max);
  const top_ = Math.ceil(max / step) * step;
  const slot = (width - left - 4) / Math.max(1, bars.length);
  const every = Math.max(1, Math.ceil(bars.length / 12));
  const lines = [];
  for (let v = 0; v <= top_; v += step) lines.push(v);
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role={bars.some((b) => b.href) ? 'group' : 'img'}
      aria-labelledby={`${id}-title`}
    >
      <title id={`${id}-title`}>{title}</title>
      {lines.map((v) => {
        const y = round(top + plotH - (v / top_) * plotH);
        return (
          <g>
            <line class="grid-line" x1={left} x2={width - 4} y1={y} y2={y} />
            <text class="axis" x={left - 6} y={y + 4} text-anchor="end">
              {formatCount(v)}
            </text>
          </g>
        );
      })}
      {bars.map((bar, i) => {
        const h = (bar.value / top_) * plotH;
        const x = left + i * slot + slot * 0.15;
        return <BarShape bar={bar} x={x} y={top + plotH - h} width={slot * 0.7} height={h} />;
      })}
      {bars.map((bar, i) =>
        i % every === 0 ? (
          <text class="axis" x={round(left + i * slot + slot / 2)} y={height - 8} text-anchor="middle">
            {bar.label}
          </text>
        ) : null,
      )}
    </svg>
  );
}

/** Horizontal bars with their label and value (severities, vendors): long labels fit. */
export function BarList({ bars, title, id }: { bars: Bar[]; title: string; id: string }) {
  const width = 720;
  const row = 24;
  const labelW = 180;
  const valueW = 70;
  const height = Math.max(row, bars.length * row) + 4;
  const max = Math.max(1, ...bars.map((b) => b.value));
  const plotW = width - labelW - valueW;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      // An image cannot hold links: a chart whose bars are links is a group of them.
      role={bars.some((b) => b.href) ? 'group' : 'img'}
      aria-labelledby={`${id}-title`}
    >
      <title id={`${id}-title`}>{title}</title>
      {bars.map((bar, i) => {
        const y = i * row + 2;
        const w = (bar.value / max) * plotW;
        return (
          <g>
            <text x={labelW - 8} y={y + 16} text-anchor="end">
              {bar.label.length > 26 ? `${bar.label.slice(0, 25)}…` : bar.label}
            </text>
            <BarShape
              bar={bar}
              x={labelW}
              y={y + 3}
              width={Math.max(w, bar.value ? 1 : 0)}
              height={row - 6}
            />
            <text x={round(labelW + w + 6)} y={y + 16}>
              {formatCount(bar.value)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** A chart with its caption and the same numbers as a table (the accessible alternative). */
export function ChartFigure({
  id,
  caption,
  chart,
  bars,
  labelHeading,
  valueHeading,
  note,
}: {
  id: string;
  caption: string;
  chart: ComponentChildren;
  bars: Bar[];
  labelHeading: string;
  valueHeading: string;
  note?: ComponentChildren;
}) {
  return (
    <figure class="card chart-figure" id={id} aria-labelledby={`${id}-caption`}>
      <figcaption id={`${id}-caption`}>
        <h2>{caption}</h2>
        {note && <p class="muted small">{note}</p>}
      </figcaption>
      {bars.length === 0 ? <p class="muted">Nothing to show yet.</p> : chart}
      <details class="chart-table">
        <summary>{caption}: table</summary>
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{labelHeading}</th>
                <th scope="col" class="num">
                  {valueHeading}
                </th>
              </tr>
            </thead>
            <tbody>
              {bars.map((bar) => (
                <tr>
                  <th scope="row">{bar.href ? <a href={bar.href}>{bar.label}</a> : bar.label}</th>
                  <td class="num">{formatCount(bar.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
