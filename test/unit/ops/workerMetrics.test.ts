import { expect } from 'chai';
import type { ProjectionLag } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { ChronicleMetrics } from '../../../src/ops/ChronicleMetrics.js';
import { supervisedMetrics, workerMetricsHub } from '../../../src/ops/workerMetrics.js';
import { captureLogger } from '../../support/captureLogger.js';
import { ipcPair } from '../../support/ipcPair.js';
import { valueOf } from '../../support/prometheusText.js';

/** An API worker's metrics, following the projector's checkpoint at `position`. */
const workerAt = (position: string, lagMs: number) => {
  const metrics = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => '40' });
  const lag: ProjectionLag = { position, head: '40', caughtUp: position === '40', lagMs };
  metrics.trackSubscription('read-models', async () => lag);
  return metrics;
};

describe('workerMetrics: GET /metrics of API_WORKERS, every worker added up by the supervisor', () => {
  it('sums the requests of every worker, whichever is scraped; takes the log head once and the slowest follower', async () => {
    const hub = workerMetricsHub();
    const [a, b] = [workerAt('40', 0), workerAt('31', 2_500)];
    const [pa, pb] = [ipcPair(), ipcPair()];
    hub.serve(pa.supervisor);
    hub.serve(pb.supervisor);
    const scrapeA = supervisedMetrics(() => a.snapshot(), pa.worker);
    const scrapeB = supervisedMetrics(() => b.snapshot(), pb.worker);
    a.observeRequest('GET', '/contacts/:id', 200, 0.002);
    a.observeRequest('GET', '/contacts/:id', 200, 0.002);
    b.observeRequest('GET', '/contacts/:id', 200, 0.004);
    b.observeRequest('POST', '/contacts', 201, 0.01);
    for (const text of [await scrapeA.render(), await scrapeB.render()]) {
      expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="/contacts/:id",status="200"}')).to.equal(3);
      expect(valueOf(text, 'chronicle_http_request_duration_seconds_count{method="GET",route="/contacts/:id",status="200"}')).to.equal(3);
      expect(valueOf(text, 'chronicle_http_requests_total{method="POST",route="/contacts",status="201"}')).to.equal(1);
      expect(valueOf(text, 'chronicle_log_head_position')).to.equal(40);
      expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(31);
      expect(valueOf(text, 'chronicle_projection_lag_seconds{subscription="read-models"}')).to.equal(2.5);
      expect(valueOf(text, 'chronicle_projection_caught_up{subscription="read-models"}')).to.equal(0);
      expect(text.match(/^# TYPE chronicle_http_requests_total /gm)).to.have.length(1);
    }
    scrapeA.stop();
    scrapeB.stop();
  });

  it('leaves out a worker that does not answer in time, and forgets a worker that is gone', async () => {
    const hub = workerMetricsHub(100);
    const answering = workerAt('40', 0);
    const [pa, silent, gone] = [ipcPair(), ipcPair(), ipcPair()];
    hub.serve(pa.supervisor);
    // A worker that never answers (stopping, stuck): nothing listens at its end.
    hub.serve(silent.supervisor);
    const forgetGone = hub.serve(gone.supervisor);
    gone.cut();
    forgetGone();
    const scrape = supervisedMetrics(() => answering.snapshot(), pa.worker);
    answering.observeRequest('GET', '/test', 200, 0.001);
    const started = Date.now();
    const text = await scrape.render();
    // It waited for the silent worker until its timeout (100 ms), not before.
    expect(Date.now() - started).to.be.at.least(90);
    expect(valueOf(text, 'chronicle_http_requests_total{method="GET",route="/test",status="200"}')).to.equal(1);
    scrape.stop();
  });

  it('a supervisor that does not answer makes the scrape a 503 (store busy), never one worker’s figures', async () => {
    const { worker } = ipcPair();
    const scrape = supervisedMetrics(() => workerAt('40', 0).snapshot(), worker, 50);
    const refused = await scrape.render().catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(StoreUnavailableError);
    scrape.stop();
  });
});
