// Reading `perf script` output (samples with their call stacks, `perf record -g`) of a Node
// process started with `--perf-basic-prof`: who spent the time, summed by source file, one
// thread at a time; and the stacks folded for a flame graph (flameGraph.ts).

/** One frame of a sample's stack: the symbol and the file (binary, or `[kernel.kallsyms]`) it is in. */
export interface Frame {
  readonly symbol: string;
  readonly dso: string;
}

/** One sample: the thread it was taken on and its stack, the leaf (where the CPU was) first. */
export interface Sample {
  readonly thread: number;
  readonly stack: readonly Frame[];
}

/** A sample's header: `comm tid …` or `comm pid/tid …`, then the time and the event. */
const HEADER = /^(.*?)\s+(\d+)(?:\/(\d+))?\s+(?:\[\d+\]\s+)?\d+\.\d+:/;
/** A frame: its address, its symbol (with an offset, or `[unknown]`) and its file in parentheses. */
const FRAME = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/;

/** The samples of `perf script`'s text, in order. Lines it does not recognise are skipped. */
export const parsePerfScript = (text: string): Sample[] => {
  const samples: Sample[] = [];
  let thread: number | null = null;
  let stack: Frame[] = [];
  const end = (): void => {
    if (thread !== null) samples.push({ thread, stack });
    thread = null;
    stack = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      end();
      continue;
    }
    if (!/^\s/.test(line)) {
      end();
      const header = HEADER.exec(line);
      if (header) thread = Number(header[3] ?? header[2]);
      continue;
    }
    const frame = FRAME.exec(line);
    if (frame && thread !== null) stack.push({ symbol: frame[1]!.replace(/\+0x[0-9a-f]+$/, ''), dso: frame[2]! });
  }
  end();
  return samples;
};

/** Code the JIT compiled, named by `--perf-basic-prof`: `JS:*name file:///…/x.js:1:2` or `JS:^name node:internal/…:1:2`. */
const SCRIPT = /((?:file:\/\/)?\/[^\s:]+\.m?js|node:[A-Za-z0-9_/-]+)/;

/**
 * Where a frame's code comes from, when it is JavaScript: a package (`nm:koa`), a file of
 * this project (`src/…`, `projections/…`, relative to the build), or one of Node's own
 * modules (`node:_http_server`); null for native code.
 */
export const placeOf = (frame: Frame): string | null => {
  const script = SCRIPT.exec(frame.symbol)?.[1];
  if (!script) return null;
  if (script.startsWith('node:')) return script;
  const packaged = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(script);
  if (packaged) return `nm:${packaged[1]}`;
  const built = /\/dist\/(.*)$/.exec(script);
  return built ? built[1]! : script.replace(/^file:\/\//, '');
};

const isKernel = (frame: Frame | undefined): boolean => frame !== undefined && frame.dso.includes('kernel');
const dsoName = (dso: string): string => dso.split('/').pop() ?? dso;

/**
 * The place a sample is counted to: the JavaScript nearest its leaf (the code that called
 * into native code or the kernel is what asked for that time), else the native file it was
 * in (`(native: node)`, `(native: libc.so.6)`, `(native: [kernel.kallsyms])`).
 */
export const sampleOwner = (sample: Sample): string => {
  for (const frame of sample.stack) {
    const place = placeOf(frame);
    if (place) return place;
  }
  const leaf = sample.stack[0];
  return leaf ? `(native: ${dsoName(leaf.dso)})` : '(no stack)';
};

export interface PlaceShare {
  readonly place: string;
  /** Of the thread's samples. */
  readonly share: number;
  /** Of the thread's samples: those of this place whose leaf was in the kernel. */
  readonly kernelShare: number;
}

export interface ThreadSummary {
  readonly thread: number;
  readonly samples: number;
  /** Its places, the largest first. */
  readonly places: readonly PlaceShare[];
}

/** The samples of one thread summed by `sampleOwner`, with the kernel's part of each apart. */
export const summarizeThread = (samples: readonly Sample[], thread: number): ThreadSummary => {
  const counts = new Map<string, { all: number; kernel: number }>();
  let total = 0;
  for (const sample of samples) {
    if (sample.thread !== thread) continue;
    total += 1;
    const owner = sampleOwner(sample);
    const count = counts.get(owner) ?? { all: 0, kernel: 0 };
    count.all += 1;
    if (isKernel(sample.stack[0])) count.kernel += 1;
    counts.set(owner, count);
  }
  const places = [...counts]
    .map(([place, { all, kernel }]) => ({ place, share: all / total, kernelShare: kernel / total }))
    .sort((a, b) => b.share - a.share || a.place.localeCompare(b.place));
  return { thread, samples: total, places };
};

/** The threads sampled, the busiest first, with their sample counts. */
export const threadsBySamples = (samples: readonly Sample[]): { thread: number; samples: number }[] => {
  const counts = new Map<number, number>();
  for (const sample of samples) counts.set(sample.thread, (counts.get(sample.thread) ?? 0) + 1);
  return [...counts].map(([thread, n]) => ({ thread, samples: n })).sort((a, b) => b.samples - a.samples || a.thread - b.thread);
};

/** A frame's name in a flame graph: JavaScript by function and place, native code by symbol and file. */
export const frameName = (frame: Frame): string => {
  const place = placeOf(frame);
  if (place) {
    const name = frame.symbol.replace(/^[A-Za-z]+:[*^~+-]?/, '').split(/\s+/)[0] || '(anonymous)';
    return `${name.startsWith('file:') || name.startsWith('node:') ? '(anonymous)' : name} ${place}`;
  }
  if (isKernel(frame)) return `${frame.symbol} [kernel]`;
  return `${frame.symbol} (${dsoName(frame.dso)})`;
};

/**
 * One thread's stacks folded (`root;…;leaf` and the samples that had that stack, one line
 * each, the most frequent first): the input every flame graph tool reads.
 */
export const foldStacks = (samples: readonly Sample[], thread: number): { stack: string[]; count: number }[] => {
  const counts = new Map<string, { stack: string[]; count: number }>();
  for (const sample of samples) {
    if (sample.thread !== thread) continue;
    const stack = sample.stack.map(frameName).reverse();
    const key = stack.join(';');
    const folded = counts.get(key) ?? { stack, count: 0 };
    folded.count += 1;
    counts.set(key, folded);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
};
