// The recovery chart: recovered orders % against days since the original decline, one line
// per strategy, one panel per population, as a self-contained SVG (no script, no fonts
// fetched, readable on GitHub and in a browser).
import type { StrategyResult } from './report.ts';

export interface Panel {
  title: string;
  results: readonly StrategyResult[];
}

const WIDTH = 460;
const HEIGHT = 300;
const M = { left: 48, right: 16, top: 36, bottom: 44 };
// Distinct in colour and in dash, so the lines stay apart in grey print too.
const STYLES = [
  { colour: '#1b6ac9', dash: '' },
  { colour: '#d1495b', dash: '6 3' },
  { colour: '#2e933c', dash: '2 3' },
  { colour: '#8a5a00', dash: '10 3 2 3' },
];

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function recoverySvg(panels: readonly Panel[], caption: string): string {
  const legendHeight = 20 * (panels[0]?.results.length ?? 0) + 12;
  const total = { w: WIDTH * panels.length, h: HEIGHT + legendHeight + 24 };
  const parts = panels.map((p, i) => panel(p, i * WIDTH));
  const legend = (panels[0]?.results ?? []).map((r, i) => {
    const s = STYLES[i % STYLES.length]!;
    const y = HEIGHT + 14 + i * 20;
    return `<line x1="${M.left}" y1="${y}" x2="${M.left + 28}" y2="${y}" stroke="${s.colour}" stroke-width="2.5" stroke-dasharray="${s.dash}"/>` +
      `<text x="${M.left + 36}" y="${y + 4}">${esc(r.name)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${total.w}" height="${total.h}" viewBox="0 0 ${total.w} ${total.h}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...parts,
    ...legend,
    `<text x="${M.left}" y="${total.h - 8}" fill="#555" font-size="11">${esc(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

function panel(p: Panel, x0: number): string {
  const days = (p.results[0]?.curve.length ?? 1) - 1;
  const top = Math.max(10, Math.ceil(Math.max(...p.results.flatMap((r) => r.curve)) / 10) * 10);
  const w = WIDTH - M.left - M.right;
  const h = HEIGHT - M.top - M.bottom;
  const x = (d: number) => x0 + M.left + (d / days) * w;
  const y = (pct: number) => M.top + h - (pct / top) * h;
  const out: string[] = [`<text x="${x0 + M.left}" y="20" font-weight="bold">${esc(p.title)}</text>`];
  for (let pct = 0; pct <= top; pct += 10) {
    out.push(`<line x1="${x(0)}" y1="${y(pct)}" x2="${x(days)}" y2="${y(pct)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x(0) - 6}" y="${y(pct) + 4}" text-anchor="end" fill="#555">${pct} %</text>`);
  }
  for (let d = 0; d <= days; d += 5) out.push(`<text x="${x(d)}" y="${M.top + h + 16}" text-anchor="middle" fill="#555">${d}</text>`);
  out.push(`<text x="${x(days / 2)}" y="${M.top + h + 34}" text-anchor="middle" fill="#555">days since the original decline</text>`);
  out.push(`<line x1="${x(0)}" y1="${y(0)}" x2="${x(days)}" y2="${y(0)}" stroke="#999"/>`);
  p.results.forEach((r, i) => {
    const s = STYLES[i % STYLES.length]!;
    // The share recovered at most d days after the decline, for each whole day d.
    const points = r.curve.map((pct, d) => `${x(d).toFixed(1)},${y(pct).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="2.5" stroke-dasharray="${s.dash}" points="${points.join(' ')}"><title>${esc(r.name)}: ${r.recoveredPct.toFixed(1)} %</title></polyline>`);
  });
  return out.join('\n');
}
