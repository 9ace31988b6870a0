import { expect } from 'chai';
import {
  foldStacks,
  frameName,
  parsePerfScript,
  placeOf,
  sampleOwner,
  summarizeThread,
  threadsBySamples,
} from '../../../bench/support/perfProfile.js';
import { flameGraphSvg } from '../../../bench/support/flameGraph.js';

// Four samples as `perf script` prints them for a Node process started with --perf-basic-prof:
// three on the event loop (tid 100), one on a worker thread (tid 107).
const SCRIPT = [
  'node 100 43661.963010:     500250 cpu-clock:ppp: ',
  '\t    ffffffff81a0 copy_folio_from_iter_atomic+0x2c ([kernel.kallsyms])',
  '\t    7feb0001 sqlite3_step+0x265 (/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node)',
  '\t    7febc41a JS:*SqliteEventStore.appendOne file:///app/dist/src/adapters/sqlite/SqliteEventStore.js:81:26+0x436 (/tmp/perf-100.map)',
  '\t    7febc42b JS:*processTicksAndRejections node:internal/process/task_queues:67:35+0x340 (/tmp/perf-100.map)',
  '',
  'node 100 43661.963473:     500250 cpu-clock:ppp: ',
  '\t    7febc41e JS:*resume_ node:internal/streams/readable:1254:17+0xe3 (/tmp/perf-100.map)',
  '\t    7febc42b JS:*processTicksAndRejections node:internal/process/task_queues:67:35+0x340 (/tmp/perf-100.map)',
  '',
  'node 100 43661.963980:     500250 cpu-clock:ppp: ',
  '\t    5600aa uv__io_poll+0x1f2 (/usr/bin/node)',
  '\t    5600ab uv_run+0x9c (/usr/bin/node)',
  '',
  'node 107 43661.964001:     500250 cpu-clock:ppp: ',
  '\t    7fec0001 JS:^ file:///app/dist/src/adapters/sqlite/readModelThread.js:31:18+0x20 (/tmp/perf-100.map)',
  '\t    7fec0002 JS:*compose file:///app/node_modules/@scope/pkg/lib/index.js:10:5+0x1 (/tmp/perf-100.map)',
  '',
].join('\n');

describe('bench:profile: reading perf script output', () => {
  it('reads each sample with its thread and its stack, the leaf first', () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples.map((sample) => sample.thread)).to.deep.equal([100, 100, 100, 107]);
    expect(samples[0]!.stack.map((frame) => frame.symbol)).to.deep.equal([
      'copy_folio_from_iter_atomic',
      'sqlite3_step',
      'JS:*SqliteEventStore.appendOne file:///app/dist/src/adapters/sqlite/SqliteEventStore.js:81:26',
      'JS:*processTicksAndRejections node:internal/process/task_queues:67:35',
    ]);
    expect(samples[0]!.stack[0]!.dso).to.equal('[kernel.kallsyms]');
  });

  it('reads a pid/tid header as the thread', () => {
    const [sample] = parsePerfScript('node 100/107 [001] 12.5: 1 cpu-clock: \n\t 1 f+0x1 (/usr/bin/node)\n');
    expect(sample!.thread).to.equal(107);
  });

  it('names where JavaScript comes from: the build, a package, Node', () => {
    const [first, , , worker] = parsePerfScript(SCRIPT);
    expect(placeOf(first!.stack[2]!)).to.equal('src/adapters/sqlite/SqliteEventStore.js');
    expect(placeOf(first!.stack[3]!)).to.equal('node:internal/process/task_queues');
    expect(placeOf(worker!.stack[1]!)).to.equal('nm:@scope/pkg');
    expect(placeOf(first!.stack[0]!)).to.equal(null);
  });

  it('counts a sample to the JavaScript nearest its leaf, else to its native file', () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples.map(sampleOwner)).to.deep.equal([
      'src/adapters/sqlite/SqliteEventStore.js',
      'node:internal/streams/readable',
      '(native: node)',
      'src/adapters/sqlite/readModelThread.js',
    ]);
  });

  it("sums one thread's samples by place, with the kernel's part apart", () => {
    const summary = summarizeThread(parsePerfScript(SCRIPT), 100);
    expect(summary.samples).to.equal(3);
    expect(summary.places).to.have.length(3);
    const store = summary.places.find((place) => place.place === 'src/adapters/sqlite/SqliteEventStore.js')!;
    expect(store.share).to.be.closeTo(1 / 3, 1e-9);
    expect(store.kernelShare).to.be.closeTo(1 / 3, 1e-9);
    expect(summary.places.find((place) => place.place === '(native: node)')!.kernelShare).to.equal(0);
    expect(threadsBySamples(parsePerfScript(SCRIPT))).to.deep.equal([
      { thread: 100, samples: 3 },
      { thread: 107, samples: 1 },
    ]);
  });

  it('folds stacks root first, named by function and place', () => {
    const samples = parsePerfScript(SCRIPT + SCRIPT);
    const folded = foldStacks(samples, 100);
    expect(folded).to.have.length(3);
    expect(folded.every(({ count }) => count === 2)).to.equal(true);
    expect(folded.map(({ stack }) => stack.join(';'))).to.include(
      [
        'processTicksAndRejections node:internal/process/task_queues',
        'SqliteEventStore.appendOne src/adapters/sqlite/SqliteEventStore.js',
        'sqlite3_step (better_sqlite3.node)',
        'copy_folio_from_iter_atomic [kernel]',
      ].join(';'),
    );
    expect(frameName(samples[3]!.stack[0]!)).to.equal('(anonymous) src/adapters/sqlite/readModelThread.js');
  });
});

describe('bench:profile: the flame graph', () => {
  const folded = [
    { stack: ['main', 'a', 'b'], count: 3 },
    { stack: ['main', 'c <x>'], count: 1 },
  ];

  const boxes = (svg: string): Map<string, number> =>
    new Map([...svg.matchAll(/<title>([^<]*) \(\d+ samples[^<]*<\/title><rect [^>]*width="([\d.]+)"/g)].map((m) => [m[1]!, Number(m[2])]));

  it('draws each frame as wide as its share of the samples, callers below callees', () => {
    const svg = flameGraphSvg(folded, { title: 'test', width: 420 });
    const widths = boxes(svg);
    // 400 px for 4 samples (10 px margins), less half a pixel between boxes.
    expect(widths.get('all')).to.be.closeTo(399.5, 0.01);
    expect(widths.get('main')).to.be.closeTo(399.5, 0.01);
    expect(widths.get('a')).to.be.closeTo(299.5, 0.01);
    expect(widths.get('c &lt;x&gt;')).to.be.closeTo(99.5, 0.01);
    const y = (name: string) => Number(new RegExp(`<title>${name} \\(.*?<rect [^>]*y="(\\d+)"`).exec(svg)![1]);
    expect(y('b')).to.be.lessThan(y('a'));
    expect(y('a')).to.be.lessThan(y('main'));
    expect(svg.startsWith('<svg ')).to.equal(true);
  });

  it('leaves out frames narrower than the least share', () => {
    const svg = flameGraphSvg(folded, { title: 'test', minShare: 0.3 });
    expect([...boxes(svg).keys()]).to.have.members(['all', 'main', 'a', 'b']);
  });
});
