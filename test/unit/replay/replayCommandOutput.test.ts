import { expect } from 'chai';
import { describeProgress, formatDuration, formatProgressLine, lineDisplay } from '../../../src/cli/commands/replay.js';
import type { ReplayProgress } from '../../../src/application/replay/replayReadModels.js';

const at = (events: number, elapsedMs: number, position = String(events), head = '1000'): ReplayProgress => ({ events, position, head, elapsedMs });

describe('chronicle replay: progress output', () => {
  it('formats durations for people', () => {
    expect(formatDuration(850)).to.equal('850 ms');
    expect(formatDuration(4200)).to.equal('4.2 s');
    expect(formatDuration(185_000)).to.equal('3 min 5 s');
    expect(formatDuration(3_720_000)).to.equal('1 h 2 min');
  });

  it('shows the share done, the position against the head, the rate and the time left', () => {
    expect(describeProgress(at(250, 1000))).to.deep.equal({ percent: 25, permille: 250, events: 250, position: '250', head: '1000', rate: 250, eta: '3.0 s' });
    expect(formatProgressLine(at(250, 1000))).to.equal('replay: 25% (position 250 of 1000), 250 events, 250 events/s, ETA 3.0 s');
  });

  it('prints a plain line once every two seconds, none for a short replay', () => {
    const printed: string[] = [];
    const display = lineDisplay({ out: () => undefined, err: (line) => printed.push(line), env: {} });
    for (const [events, ms] of [[100, 500], [200, 1900], [300, 2100], [400, 2500], [500, 4100], [600, 9000]] as const) {
      display.update(at(events, ms));
    }
    expect(printed.map((line) => line.split(',')[1]!.trim())).to.deep.equal(['300 events', '500 events', '600 events']);
  });
});
