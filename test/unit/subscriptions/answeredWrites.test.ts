import { expect } from 'chai';
import type { Context } from 'koa';
import { AnsweredWrites } from '../../../src/application/subscriptions/AnsweredWrites.js';
import type { ReadModelProgress } from '../../../src/application/subscriptions/ReadModelProgress.js';
import {
  afterCreate,
  consistentReads,
  findAfterCreates,
  LOG_POSITION_HEADER,
  READ_YOUR_WRITES_HEADER,
} from '../../../src/http/middleware/consistentReads.js';
import { comparePositions, type Position } from '../../../src/shared/Position.js';

/**
 * Read models that apply the log only when told to, and whose waits end only when told to:
 * applied (`apply`), or run out as their bound would have (`runOut`). No timer runs, so what
 * a read waited for is seen in `waits`, never in how long it took.
 */
class SteppedProgress implements ReadModelProgress {
  position: Position | null = null;
  /** Every wait asked for, in order, with its bound. */
  readonly waits: { readonly position: Position; readonly timeoutMs: number }[] = [];
  private pending: { readonly position: Position; readonly resolve: (reached: boolean) => void }[] = [];

  waitFor(position: Position, timeoutMs: number): Promise<boolean> {
    this.waits.push({ position, timeoutMs });
    if (this.position !== null && comparePositions(position, this.position) <= 0) return Promise.resolve(true);
    return new Promise((resolve) => this.pending.push({ position, resolve }));
  }

  /** Waits not ended yet. */
  get waiting(): number {
    return this.pending.length;
  }

  apply(position: Position): void {
    this.position = position;
    const reached = this.pending.filter((waiter) => comparePositions(waiter.position, position) <= 0);
    this.pending = this.pending.filter((waiter) => !reached.includes(waiter));
    for (const waiter of reached) waiter.resolve(true);
  }

  /** Every wait still open runs out, nothing applied (its bound passed). */
  runOut(): void {
    const ended = this.pending;
    this.pending = [];
    for (const waiter of ended) waiter.resolve(false);
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
  /** Lets every continuation that can run, run (the middleware's awaits). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** The read ends, its route ran, and its answer says nothing of a timeout. */
  const endsFresh = async (pending: ReturnType<typeof startRead>, reading: FakeContext): Promise<void> => {
    await pending.done;
    expect(pending.ran()).to.equal(true);
    expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
  };
  /** Runs the middleware (bound TIMEOUT_MS); resolves with whether the route ran. */
  const read = async (ctx: FakeContext): Promise<boolean> => {
    let ran = false;
    await consistentReads(progress, TIMEOUT_MS, answered)(asKoa(ctx), async () => {
      ran = true;
    });
    return ran;
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
    await settle();
    expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: 5_000 }]);
    expect(pending.ran(), 'still waiting for position 12').to.equal(false);
    progress.apply('11');
    await settle();
    expect(pending.ran(), 'position 11 is not enough').to.equal(false);
    progress.apply('12');
    await endsFresh(pending, reading);
    expect(answered.before('acme')).to.deep.equal({ kind: 'none' });
    expect(answered.pending, 'applied: forgotten').to.equal(0);
  });

  it('given another company’s create not yet applied, when a company reads, then it does not wait', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    expect(await read(request('GET', 'globex'))).to.equal(true);
    expect(progress.waits, 'no wait').to.deep.equal([]);
    expect(answered.pending).to.equal(1);
  });

  it('given the read models stopped, when the company reads twice, then the first waits the bound and both say so, and only the first waits', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    const first = request('GET', 'acme');
    const firstRead = read(first);
    expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: TIMEOUT_MS }]);
    progress.runOut();
    expect(await firstRead).to.equal(true);
    expect(first.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
    const second = request('GET', 'acme');
    expect(await read(second)).to.equal(true);
    expect(progress.waits, 'only the first waited').to.have.length(1);
    expect(second.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');

    // A newer create asks for a wait again.
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '13');
    const third = request('GET', 'acme');
    const waiting = read(third);
    expect(progress.waits.at(-1)).to.deep.equal({ position: '13', timeoutMs: TIMEOUT_MS });
    progress.apply('13');
    expect(await waiting).to.equal(true);
    expect(third.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
  });

  it('given X-Min-Log-Position beyond the company’s own writes, when it reads, then it waits for the header’s position', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    const reading = request('GET', 'acme', { 'X-Min-Log-Position': '14' });
    const pending = startRead(reading);
    progress.apply('12');
    await settle();
    expect(pending.ran(), 'its own create is applied, the header’s position is not').to.equal(false);
    expect(progress.waits.map((wait) => wait.position)).to.deep.equal(['14']);
    progress.apply('14');
    await endsFresh(pending, reading);
  });

  it('given a write, when a non-GET request comes, then it never waits', async () => {
    afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
    expect(await read(request('POST', 'acme'))).to.equal(true);
    expect(progress.waits).to.deep.equal([]);
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
    /** A read of one document on a route in `findsFirst`: what it found, and how often it looked. */
    const readOne = async (ctx: FakeContext, stored: () => string | null): Promise<{ readonly found: string | null; readonly looks: number }> => {
      let looks = 0;
      let found: string | null = null;
      ctx.state.route = ROUTE;
      await consistentReads(progress, TIMEOUT_MS, answered, new Set([ROUTE]))(asKoa(ctx), async () => {
        found = await findAfterCreates(ctx.state, async () => {
          looks += 1;
          return stored();
        });
      });
      return { found, looks };
    };

    it('given a create not yet applied, when its company reads a document that exists, then it answers at once, saying nothing', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const reading = request('GET', 'acme');
      const { found, looks } = await readOne(reading, () => 'ada');
      expect(found).to.equal('ada');
      expect(progress.waits, 'no wait').to.deep.equal([]);
      expect(looks).to.equal(1);
      expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
      expect(answered.pending, 'the create is still waited for by the next miss').to.equal(1);
    });

    it('given a create not yet applied, when its company reads the new document, then it waits for the create and looks again', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      let stored: string | null = null;
      const reading = request('GET', 'acme');
      const pending = readOne(reading, () => stored);
      await settle();
      expect(progress.waiting, 'missed: waiting for the create').to.equal(1);
      stored = 'grace';
      progress.apply('12');
      const { found, looks } = await pending;
      expect(found).to.equal('grace');
      expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: TIMEOUT_MS }]);
      expect(looks).to.equal(2);
      expect(reading.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
    });

    it('given the read models stopped, when the company misses twice and then finds, then the first miss waits the bound, both misses say so, the find does not', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const first = request('GET', 'acme');
      const missing = readOne(first, () => null);
      await settle();
      expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: TIMEOUT_MS }]);
      progress.runOut();
      expect((await missing).found).to.equal(null);
      expect(first.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
      const second = request('GET', 'acme');
      expect((await readOne(second, () => null)).found).to.equal(null);
      expect(progress.waits, 'only the first miss waited').to.have.length(1);
      expect(second.answer[READ_YOUR_WRITES_HEADER]).to.equal('timeout');
      const third = request('GET', 'acme');
      expect((await readOne(third, () => 'ada')).found).to.equal('ada');
      expect(third.answer[READ_YOUR_WRITES_HEADER]).to.equal(undefined);
    });

    it('given X-Min-Log-Position, when the company reads a document that exists, then it still waits for the header’s position', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const pending = readOne(request('GET', 'acme', { 'X-Min-Log-Position': '11' }), () => 'ada');
      await settle();
      // The later of the header's position and the company's create.
      expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: TIMEOUT_MS }]);
      expect(progress.waiting).to.equal(1);
      progress.apply('12');
      expect((await pending).found).to.equal('ada');
    });

    it('given a create not yet applied, when its company reads a route not in the set, then it waits as before', async () => {
      afterCreate(asKoa(request('POST', 'acme')), answered, 'acme', '12');
      const reading = request('GET', 'acme');
      reading.state.route = '/contacts';
      const done = consistentReads(progress, TIMEOUT_MS, answered, new Set([ROUTE]))(asKoa(reading), async () => undefined);
      expect(progress.waits).to.deep.equal([{ position: '12', timeoutMs: TIMEOUT_MS }]);
      progress.runOut();
      await done;
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
