// A flame graph of folded stacks (perfProfile.ts's `foldStacks`) as a standalone SVG: each
// frame a box as wide as the share of samples that had it on their stack, its callers below
// it, the frames of one caller sorted by name. Hover a box for its name and share.

export interface FlameGraphOptions {
  readonly title: string;
  /** Width of the drawing in pixels. Default 1200. */
  readonly width?: number;
  /** Frames narrower than this share of all samples are left out (with their callees). Default 0.002. */
  readonly minShare?: number;
}

interface Node {
  readonly name: string;
  count: number;
  readonly children: Map<string, Node>;
}

const ROW = 17;
const FONT = 11;
/** Width of one character of the labels' font, roughly: a label is cut to fit its box. */
const CHAR = 6.4;
const MARGIN = 10;
const HEADER = 36;

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Colours by where the code is: this project's, a package's, Node's own JavaScript, native code, the kernel. */
const colourOf = (name: string): string => {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) >>> 0;
  const shade = (base: number, spread: number) => base + (hash % spread);
  if (/ (src|projections)\//.test(name)) return `rgb(240,${shade(120, 60)},${shade(40, 40)})`;
  if (/ nm:/.test(name)) return `rgb(${shade(200, 40)},${shade(180, 40)},60)`;
  if (/ node:/.test(name)) return `rgb(${shade(90, 50)},${shade(170, 50)},90)`;
  if (name.endsWith('[kernel]')) return `rgb(${shade(190, 50)},${shade(90, 40)},${shade(90, 40)})`;
  return `rgb(${shade(160, 40)},${shade(160, 40)},${shade(170, 40)})`;
};

const tree = (folded: readonly { stack: readonly string[]; count: number }[]): Node => {
  const root: Node = { name: 'all', count: 0, children: new Map() };
  for (const { stack, count } of folded) {
    root.count += count;
    let node = root;
    for (const name of stack) {
      let child = node.children.get(name);
      if (!child) node.children.set(name, (child = { name, count: 0, children: new Map() }));
      child.count += count;
      node = child;
    }
  }
  return root;
};

/** The SVG text of the flame graph of `folded`. */
export const flameGraphSvg = (folded: readonly { stack: readonly string[]; count: number }[], options: FlameGraphOptions): string => {
  const width = options.width ?? 1200;
  const minShare = options.minShare ?? 0.002;
  const root = tree(folded);
  const total = Math.max(1, root.count);
  const scale = (width - 2 * MARGIN) / total;
  const boxes: { x: number; depth: number; node: Node }[] = [];
  let depthMax = 0;
  const place = (node: Node, x: number, depth: number): void => {
    boxes.push({ x, depth, node });
    depthMax = Math.max(depthMax, depth);
    let next = x;
    for (const child of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (child.count / total >= minShare) place(child, next, depth + 1);
      next += child.count * scale;
    }
  };
  place(root, MARGIN, 0);
  const height = HEADER + (depthMax + 1) * ROW + MARGIN;
  const rows = boxes.map(({ x, depth, node }) => {
    const y = height - MARGIN - (depth + 1) * ROW;
    const w = node.count * scale;
    const share = ((100 * node.count) / total).toFixed(2);
    const fits = Math.floor((w - 6) / CHAR);
    const label = fits >= 3 ? (node.name.length <= fits ? node.name : `${node.name.slice(0, fits - 2)}..`) : '';
    return (
      `<g><title>${escape(node.name)} (${node.count} samples, ${share}%)</title>` +
      `<rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(0.1, w - 0.5).toFixed(1)}" height="${ROW - 1}" rx="2" fill="${node === root ? 'rgb(200,200,200)' : colourOf(node.name)}"/>` +
      (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + ROW - 5}">${escape(label)}</text>` : '') +
      `</g>`
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="${FONT}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" font-size="15" text-anchor="middle">${escape(options.title)}</text>`,
    ...rows,
    `</svg>`,
    '',
  ].join('\n');
};
