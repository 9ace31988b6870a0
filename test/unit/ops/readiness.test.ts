import { expect } from 'chai';
import type { ProjectionLag } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { LoopHealth } from '../../../src/application/subscriptions/LoopHealth.js';
import { checkReadiness, describeCheck, type ReadinessDeps } from '../../../src/ops/readiness.js';
import { captureLogger } from '../../support/captureLogger.js';

const caughtUp: ProjectionLag = { position: '7', head: '7', caughtUp: true, lagMs: 0 };
const behind = (lagMs: number): ProjectionLag => ({ position: '3', head: '7', caughtUp: false, lagMs });
const never = (): Promise<never> => new Promise(() => undefined);

const deps = (overrides: Partial<ReadinessDeps> = {}): ReadinessDeps => ({
  eventStore: async () => '7',
  readModels: async () => '7',
  projectionLag: async () => caughtUp,
  maxLagMs: 5000,
  checkTimeoutMs: 100,
  stopping: () => false,
  logger: captureLogger(),
  ...overrides,
});

describe('readiness checks', () => {
  it('is ready when both stores answer and the read models are within the bound', async () => {
    expect(await checkReadiness(deps({ projectionLag: async () => behind(5000) }))).to.deep.equal({
      ready: true,
      checks: { eventStore: { status: 'ok' }, readModels: { status: 'ok' }, projections: { status: 'ok', lagMs: 5000 } },
    });
  });

  it('names the background loops meeting store errors (not the errors), and is not ready while they do', async () => {
    const health = new LoopHealth(() => new Date('2026-01-01T00:00:00.000Z'));
    health.failed('webhook-dispatcher');
    health.failed('webhook-dispatcher');
    const failing = await checkReadiness(deps({ loops: () => health.snapshot() }));
    expect(failing.ready).to.equal(false);
    expect(failing.checks.backgroundLoops).to.deep.equal({
      status: 'failed',
      failing: { 'webhook-dispatcher': { since: '2026-01-01T00:00:00.000Z', failures: 2 } },
    });
    health.succeeded('webhook-dispatcher');
    const recovered = await checkReadiness(deps({ loops: () => health.snapshot() }));
    expect(recovered.ready).to.equal(true);
    expect(recovered.checks).to.not.have.property('backgroundLoops');
  });

  it('is not ready when the read models are further behind than the bound', async () => {
    const { ready, checks } = await checkReadiness(deps({ projectionLag: async () => behind(5001) }));
    expect(ready).to.equal(false);
    expect(checks.projections).to.deep.equal({ status: 'lagging', lagMs: 5001 });
    expect(checks.eventStore).to.deep.equal({ status: 'ok' });
  });

  it('checks no lag where this process serves no reads', async () => {
    const { projectionLag: _omitted, ...withoutLag } = deps();
    const { ready, checks } = await checkReadiness(withoutLag);
    expect(ready).to.equal(true);
    expect(Object.keys(checks)).to.deep.equal(['eventStore', 'readModels']);
  });

  it('reports a failing store as failed, logging why but never answering it', async () => {
    const logger = captureLogger();
    const { ready, checks } = await checkReadiness(
      deps({ logger, readModels: async () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:27017')) }),
    );
    expect(ready).to.equal(false);
    expect(checks.readModels).to.deep.equal({ status: 'failed' });
    expect(JSON.stringify(checks)).not.to.contain('10.1.2.3');
    const warning = logger.lines.find((line) => line.level === 'warn');
    expect(warning?.obj).to.include({ check: 'readModels', status: 'failed' });
  });

  it('bounds every check: a store that never answers is a timeout, and the checks run side by side (one timeout, not three)', async () => {
    const started: string[] = [];
    const hanging = (name: string) => () => {
      started.push(name);
      return never();
    };
    const answer = checkReadiness(
      deps({ eventStore: hanging('eventStore'), readModels: hanging('readModels'), projectionLag: hanging('projections'), checkTimeoutMs: 50 }),
    );
    // Side by side: every check began before any of them could time out.
    expect(started).to.deep.equal(['eventStore', 'readModels', 'projections']);
    const { ready, checks } = await answer;
    expect(ready).to.equal(false);
    expect(checks).to.deep.equal({ eventStore: { status: 'timeout' }, readModels: { status: 'timeout' }, projections: { status: 'timeout' } });
  });

  it('is not ready once a shutdown began, even with healthy stores', async () => {
    const { ready, checks } = await checkReadiness(deps({ stopping: () => true }));
    expect(ready).to.equal(false);
    expect(checks.shutdown).to.deep.equal({ status: 'stopping' });
  });

  it('is not ready while a subscription stopped at an event it cannot read, naming the event', async () => {
    const event = { eventId: 'e-1', stream: 'contact-1', type: 'ContactUpdated', position: '42', version: 3 };
    const { ready, checks } = await checkReadiness(
      deps({ stoppedAt: { projections: () => ({ event }), webhookFanOut: () => null } }),
    );
    expect(ready).to.equal(false);
    expect(checks.projections).to.deep.equal({ status: 'stopped', event });
    expect(checks).not.to.have.property('webhookFanOut');
    expect(describeCheck('projections', checks.projections!)).to.equal(
      'projections stopped at event e-1 (ContactUpdated, version 3) at position 42 in contact-1, which this release cannot read',
    );
    expect(describeCheck('projections', { status: 'lagging', lagMs: 9 })).to.equal('projections lagging');
  });
});
