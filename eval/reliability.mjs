// Reliability diagrams, hand-written SVG (no plotting library): per method,
// stated confidence (10 equal-width bins, as the ECE) against the observed
// accuracy of the answers in each bin, with the bin's count above its bar.
// A bar below the diagonal is over-confidence, above it under-confidence.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Default output (git-ignored) and the committed one (`--write-docs`, shown in EVAL.md). */
export const OUT_DIRS = { artifacts: join(repo, 'artifacts', 'eval'), docs: join(repo, 'docs', 'eval') };

const PLOT = 180; // plot area side, px
const M = { left: 38, right: 14, top: 40, bottom: 34 };
const W = M.left + PLOT + M.right;
const H = M.top + PLOT + M.bottom;
const PER_ROW = 4;

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n1 = (x) => Math.round(x * 10) / 10;
const count = (n) => (n >= 10000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/** One SVG of panels, one per method: { name, bins: [{ n, conf, hits }], accuracy, ece }. */
export function reliabilitySvg(title, panels) {
  const cols = Math.min(PER_ROW, panels.length);
  const rows = Math.ceil(panels.length / cols);
  const head = 34;
  const width = cols * W;
  const height = head + rows * H;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="10" y="18" font-size="13" font-weight="bold">${esc(title)}</text>`,
    `<text x="10" y="30" font-size="9.5" fill="#555">blue bars: observed accuracy per confidence bin (answers in the bin above it); red line: the bin's mean stated confidence, red area: the gap; dashed: perfect calibration</text>`,
  ];
  panels.forEach((p, i) => out.push(panel(p, (i % cols) * W, head + Math.floor(i / cols) * H)));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function panel(p, x0, y0) {
  const px = (v) => n1(x0 + M.left + v * PLOT);
  const py = (v) => n1(y0 + M.top + (1 - v) * PLOT);
  const g = [];
  const stats = [Number.isFinite(p.accuracy) ? `acc ${(100 * p.accuracy).toFixed(1)}%` : '', Number.isFinite(p.ece) ? `ECE ${p.ece.toFixed(3)}` : '',
    `n ${p.bins.reduce((s, b) => s + b.n, 0)}`].filter(Boolean).join(' · ');
  g.push(`<text x="${px(0)}" y="${n1(y0 + 16)}" font-size="11" font-weight="bold">${esc(p.name)}</text>`);
  g.push(`<text x="${px(0)}" y="${n1(y0 + 28)}" font-size="9.5" fill="#333">${esc(stats)}</text>`);
  g.push(`<rect x="${px(0)}" y="${py(1)}" width="${PLOT}" height="${PLOT}" fill="#fafafa" stroke="#999" stroke-width="0.8"/>`);
  for (const t of [0.25, 0.5, 0.75]) {
    g.push(`<line x1="${px(t)}" y1="${py(0)}" x2="${px(t)}" y2="${py(1)}" stroke="#e4e4e4" stroke-width="0.6"/>`);
    g.push(`<line x1="${px(0)}" y1="${py(t)}" x2="${px(1)}" y2="${py(t)}" stroke="#e4e4e4" stroke-width="0.6"/>`);
  }
  p.bins.forEach((b, i) => {
    if (!b.n) return;
    const acc = b.hits / b.n;
    const conf = b.conf / b.n;
    const [left, right] = [px(i / 10) + 1, px((i + 1) / 10) - 1];
    g.push(`<rect x="${n1(left)}" y="${py(acc)}" width="${n1(right - left)}" height="${n1(py(0) - py(acc))}" fill="#4a78b5"/>`);
    const [top, bottom] = [Math.max(acc, conf), Math.min(acc, conf)];
    if (top - bottom > 0.005) g.push(`<rect x="${n1(left)}" y="${py(top)}" width="${n1(right - left)}" height="${n1(py(bottom) - py(top))}" fill="#d9534f" fill-opacity="0.3"/>`);
    g.push(`<line x1="${n1(left)}" y1="${py(conf)}" x2="${n1(right)}" y2="${py(conf)}" stroke="#c9302c" stroke-width="1.6"/>`);
    g.push(`<text x="${n1((left + right) / 2)}" y="${n1(py(top) - 2.5)}" font-size="7.5" text-anchor="middle" fill="#222">${count(b.n)}</text>`);
  });
  g.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(1)}" y2="${py(1)}" stroke="#333" stroke-width="0.8" stroke-dasharray="3 2"/>`);
  for (const t of [0, 0.5, 1]) {
    g.push(`<text x="${px(t)}" y="${n1(py(0) + 11)}" font-size="8.5" text-anchor="middle">${t}</text>`);
    g.push(`<text x="${n1(px(0) - 4)}" y="${n1(py(t) + 3)}" font-size="8.5" text-anchor="end">${t}</text>`);
  }
  g.push(`<text x="${px(0.5)}" y="${n1(py(0) + 24)}" font-size="9" text-anchor="middle">stated confidence</text>`);
  g.push(`<text x="${n1(x0 + 11)}" y="${py(0.5)}" font-size="9" text-anchor="middle" transform="rotate(-90 ${n1(x0 + 11)} ${py(0.5)})">observed accuracy</text>`);
  return `<g>\n${g.join('\n')}\n</g>`;
}

/** Writes `<name>.svg` into artifacts/eval/ (default) or docs/eval/ (`docs`); returns the path relative to the repo. */
export function writeDiagram(name, svg, { docs = false } = {}) {
  const dir = docs ? OUT_DIRS.docs : OUT_DIRS.artifacts;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.svg`);
  writeFileSync(file, svg);
  return relative(repo, file);
}

export const slug = (s) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
