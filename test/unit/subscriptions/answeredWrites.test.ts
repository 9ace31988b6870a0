import { expect } from 'chai';
import type { Context } from 'koa';
import { AnsweredWrites } from '../../../src/application/subscriptions/AnsweredWrites.js';
import { PositionWaiters, type ReadModelProgress } from '../../../src/application/subscriptions/ReadModelProgress.js';
import {
  afterCreate,
  consistentReads,
  findAfterCreates,
  LOG_POSITION_HEADER,
  READ_YOUR_WRITES_HEADER,
} from '../../../src/http/middleware/consistentReads.js';
import { comparePositions, type Position } from '../../../src/shared/Position.js';

/** Read models that apply the log only when told to. */
class SteppedProgress implements ReadModelProgress {
  position: Position | null = null;
  private readonly waiters = new PositionWaiters();

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.position !== null && comparePositions(position, this.position) <= 0) return Promise.resolve(true);
    return this.waiters.add(position, timeoutMs);
  }

  apply(position: Position): void {
    this.position = position;
    this.waiters.release(position);
  }
}

interface FakeContext {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly answer: Record<string, string>;
  readonly state: { auth?: { companyId: string }; route?: string };
}

const request = (method: string, companyId: string, headers: Record<string, string> = {}): FakeContext => ({
  method,
  headers,
  answer: {},
  state: { auth: { companyId } },
});

const asKoa = (ctx: FakeContext): Context =>
  ({
    method: ctx.method,
    state: ctx.state,
    get: (name: string) => ctx.headers[name] ?? '',
    set: (name: string, value: string) => {
      ctx.answer[name] = value;
    },
  }) as unknown as Context;

describe('read-your-writes on reads (AnsweredWrites, consistentReads, afterCreate)', () => {
  let progress: SteppedProgress;
  let answered: AnsweredWrites;
  const TIMEOUT_MS = 200;
  /** Starts a read through the middleware (a long bound): whether its route ran yet, and its end. */
  const startRead = (ctx: FakeContext): { readonly ran: () => boolean; readonly done: Promise<void> } => {
    let routeRan = false;
    const done = consistentReads(progress, 5_000, answered)(asKoa(ctx), async () => {
      routeRan = true;
    });
    return { ran: () => routeRan, done };
  };
  const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** The read ends, its route ran, and its answer says nothing of a timeout. */
  const endsFresh = async (pending: ReturnType<typeof startRead>, reading: FakeContext): Promise<void> => {
    await pending.done;
    expect(pending.ran()).to.equal(true);
    expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
  };
  /** Runs the middleware; resolves with when the route ran (ms after the start), -1 if it did not. */
  const read = async (ctx: FakeContext): Promise<number> => {
    const started = performance.now();
    let ranAt = -1;
    await consistentReads(progress, TIMEOUT_MS, answered)(asKoa(ctx), async () => {
      ranAt = performance.now() - started;
    });
    return ranAt;
  };

  beforeEach(() => {
    progress = new SteppedProgress();
    progress.apply('10');
    answered = new AnsweredWrites(() => progress.position);
  });

  it('given a create answered before its read models applied it, when its company reads, then the read waits until they do', async () => {
    const created = request('POST', 'acme');
    afterCreate(asKoa(created), answered, 'acme', '12');
    expect(created.answer[LOG_POSITION_HEADER]).to.equal('12');

    const reading = request('GET', 'acme');
    const pending = startRead(reading);
    await tick(30);
    expect(pending.ran(), 'still waiting for position 12').to.equal(false);
    progress.apply('11');
    await tick(10);
    expect(pending.ran(), 'position 11 is not enough').to.equal(false);
    progress.apply('12');
    await endsFresh(pending, reading);
    expect(answered.before('acme')).to.deep.equal({ kind: 'none' });
    expect(answered.pending, 'applied: forgotten').to.equal(0);
  });

  it('given another company’s create not yet applied, when a company reads, then it does not wait', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    const ranAt = await read(request('GET', 'globex'));
    expect(ranAt).to.be.below(TIMEOUT_MS / 2);
    expect(answered.pending).to.equal(1);
  });

  it('given the read models stopped, when the company reads twice, then the first waits the bound and both say so, and only the first waits', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    const first = request('GET', 'acme');
    expect(await read(first)).to.be.at.least(TIMEOUT_MS - 20);
    expect(first.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
    const second = request('GET', 'acme');
    expect(await read(second)).to.be.below(TIMEOUT_MS / 2);
    expect(second.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');

    // A newer create asks for a wait again.
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '13');
    const third = request('GET', 'acme');
    const waiting = read(third);
    progress.apply('13');
    expect(await waiting).to.be.below(TIMEOUT_MS / 2);
    expect(third.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
  });

  it('given X-Min-Log-Position beyond the company’s own writes, when it reads, then it waits for the header’s position', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    const reading = request('GET', 'acme', { 'X-Min-Log-Position': '14' });
    const pending = startRead(reading);
    progress.apply('12');
    await tick(10);
    expect(pending.ran(), 'its own create is applied, the header’s position is not').to.equal(false);
    progress.apply('14');
    await endsFresh(pending, reading);
  });

  it('given a write, when a non-GET request comes, then it never waits', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    expect(await read(request('POST', 'acme'))).to.be.below(TIMEOUT_MS / 2);
  });

  it('given a malformed X-Min-Log-Position, when read, then it refuses with 400', async () => {
    let error: unknown;
    try {
      await read(request('GET', 'acme', { 'X-Min-Log-Position': 'latest' }));
    } catch (caught) {
      error = caught;
    }
    expect((error as { status?: number }).status).to.equal(400);
  });

  describe('a route that finds first (decision 88)', () => {
    const ROUTE = '/contacts/:id';
    /** A read of one document on a route in `findsFirst`: its answer's status, when it answered (ms), and how often it looked. */
    const readOne = async (
      ctx: FakeContext,
      stored: () => string | null,
    ): Promise<{ readonly found: string | null; readonly atMs: number; readonly looks: number }> => {
      const started = performance.now();
      let looks = 0;
      let found: string | null = null;
      ctx.state.route = ROUTE;
      await consistentReads(progress, TIMEOUT_MS, answered, new Set([ROUTE]))(asKoa(ctx), async () => {
        found = await findAfterCreates(ctx.state, async () => {
          looks += 1;
          return stored();
        });
      });
      return { found, atMs: performance.now() - started, looks };
    };

    it('given a create not yet applied, when its company reads a document that exists, then it answers at once, saying nothing', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const reading = request('GET', 'acme');
      const { found, atMs, looks } = await readOne(reading, () => 'ada');
      expect(found).to.equal('ada');
      expect(atMs).to.be.below(TIMEOUT_MS / 2);
      expect(looks).to.equal(1);
      expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
      expect(answered.pending, 'the create is still waited for by the next miss').to.equal(1);
    });

    it('given a create not yet applied, when its company reads the new document, then it waits for the create and looks again', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      let stored: string | null = null;
      const reading = request('GET', 'acme');
      const pending = readOne(reading, () => stored);
      await tick(30);
      stored = 'grace';
      progress.apply('12');
      const { found, atMs, looks } = await pending;
      expect(found).to.equal('grace');
      expect(atMs).to.be.at.least(25);
      expect(looks).to.equal(2);
      expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
    });

    it('given the read models stopped, when the company misses twice and then finds, then the first miss waits the bound, both misses say so, the find does not', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const first = request('GET', 'acme');
      const missed = await readOne(first, () => null);
      expect(missed.found).to.equal(null);
      expect(missed.atMs).to.be.at.least(TIMEOUT_MS - 20);
      expect(first.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
      const second = request('GET', 'acme');
      const again = await readOne(second, () => null);
      expect(again.atMs).to.be.below(TIMEOUT_MS / 2);
      expect(second.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
      const third = request('GET', 'acme');
      expect((await readOne(third, () => 'ada')).found).to.equal('ada');
      expect(third.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
    });

    it('given X-Min-Log-Position, when the company reads a document that exists, then it still waits for the header’s position', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const pending = readOne(request('GET', 'acme', { 'X-Min-Log-Position': '11' }), () => 'ada');
      await tick(30);
      progress.apply('12');
      expect((await pending).atMs).to.be.at.least(25);
    });

    it('given a create not yet applied, when its company reads a route not in the set, then it waits as before', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const reading = request('GET', 'acme');
      reading.state.route = '/contacts';
      const started = performance.now();
      await consistentReads(progress, TIMEOUT_MS, answered, new Set([ROUTE]))(asKoa(reading), async () => undefined);
      expect(performance.now() - started).to.be.at.least(TIMEOUT_MS - 20);
      expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
    });
  });

  it('keeps no company whose writes are all applied, even one that never reads again', () => {
    for (let i = 0; i < 2_000; i += 1) answered.answered(`company-${i}`, String(11 + i));
    progress.apply(String(11 + 2_000));
    for (let i = 0; i < 1_024; i += 1) answered.answered('last', String(20_000 + i));
    expect(answered.pending, 'the sweep forgot every applied company').to.equal(1);
  });
});
