import { expect } from 'chai';
import type { ProjectionLag } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { ChronicleMetrics } from '../../../src/ops/ChronicleMetrics.js';
import { captureLogger } from '../../support/captureLogger.js';
import { valueOf } from '../../support/prometheusText.js';

const lag = (position: string | null, head: string, lagMs: number): ProjectionLag => ({
  position,
  head,
  caughtUp: position === head,
  lagMs,
});

describe('ChronicleMetrics', () => {
  it('keeps each instance’s figures apart (a registry per instance)', async () => {
    const a = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => '1' });
    const b = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => '1' });
    a.observeRequest('GET', '/contacts/:id', 200, 0.002);
    a.observeRequest('GET', '/contacts/:id', 200, 0.004);
    b.observeRequest('GET', '/contacts/:id', 200, 0.003);
    const series = 'chronicle_http_requests_total{method="GET",route="/contacts/:id",status="200"}';
    expect(valueOf(await a.render(), series)).to.equal(2);
    expect(valueOf(await b.render(), series)).to.equal(1);
  });

  it('adds Node’s process metrics to every instance’s exposition, once', async () => {
    const text = await new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => null }).render();
    expect(text).to.match(/^process_cpu_user_seconds_total \d/m);
    expect(text).to.match(/^nodejs_heap_size_used_bytes \d/m);
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).to.have.length(1);
  });

  it('reads positions and lag at each scrape', async () => {
    let current = lag('5', '9', 1500);
    const metrics = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => current.head });
    metrics.trackSubscription('read-models', async () => current);
    let text = await metrics.render();
    expect(valueOf(text, 'chronicle_log_head_position')).to.equal(9);
    expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(5);
    expect(valueOf(text, 'chronicle_projection_lag_seconds{subscription="read-models"}')).to.equal(1.5);
    expect(valueOf(text, 'chronicle_projection_caught_up{subscription="read-models"}')).to.equal(0);
    current = lag('9', '9', 0);
    text = await metrics.render();
    expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(9);
    expect(valueOf(text, 'chronicle_projection_caught_up{subscription="read-models"}')).to.equal(1);
  });

  it('leaves a figure that cannot be read (or not in time) out of the scrape, and logs it, keeping the rest', async () => {
    const logger = captureLogger();
    let failing = false;
    const metrics = new ChronicleMetrics({ logger, headPosition: async () => '4', collectTimeoutMs: 50 });
    metrics.trackSubscription('read-models', async () => (failing ? Promise.reject(new Error('store down')) : lag('4', '4', 0)));
    metrics.trackWebhooks(() => (failing ? new Promise(() => undefined) : Promise.resolve({ pending: 2, delivered: 5, failed: 1 })));
    let text = await metrics.render();
    expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(4);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="pending"}')).to.equal(2);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="failed"}')).to.equal(1);

    failing = true;
    text = await metrics.render();
    expect(valueOf(text, 'chronicle_projection_position{subscription="read-models"}')).to.equal(undefined);
    expect(valueOf(text, 'chronicle_webhook_outbox_rows{state="pending"}')).to.equal(undefined);
    expect(valueOf(text, 'chronicle_log_head_position')).to.equal(4);
    expect(logger.lines.filter((line) => line.level === 'warn').map((line) => (line.obj as { metric: string }).metric)).to.have.members([
      'read-models',
      'webhook outbox',
    ]);
  });

  it('counts the rows the delivery log’s retention pruned, where webhooks are tracked', async () => {
    const metrics = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => null });
    metrics.observePruned(3);
    expect(valueOf(await metrics.render(), 'chronicle_webhook_outbox_pruned_total')).to.equal(undefined);
    metrics.trackWebhooks(async () => ({ pending: 0, delivered: 0, failed: 0 }));
    expect(valueOf(await metrics.render(), 'chronicle_webhook_outbox_pruned_total')).to.equal(0);
    metrics.observePruned(3);
    metrics.observePruned(0);
    metrics.observePruned(4);
    expect(valueOf(await metrics.render(), 'chronicle_webhook_outbox_pruned_total')).to.equal(7);
  });

  it('counts delivery attempts by outcome from zero, with their latency, only where webhooks are tracked', async () => {
    const metrics = new ChronicleMetrics({ logger: captureLogger(), headPosition: async () => null });
    metrics.observeAttempt('delivered', 10);
    expect(await metrics.render()).not.to.contain('chronicle_webhook_');
    metrics.trackWebhooks(async () => ({ pending: 0, delivered: 0, failed: 0 }));
    metrics.observeAttempt('delivered', 12);
    metrics.observeAttempt('retry', 30_000);
    const text = await metrics.render();
    expect(valueOf(text, 'chronicle_webhook_attempts_total{outcome="delivered"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_webhook_attempts_total{outcome="retry"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_webhook_attempts_total{outcome="gone"}')).to.equal(0);
    expect(valueOf(text, 'chronicle_webhook_attempt_duration_seconds_sum{outcome="delivered"}')).to.equal(0.012);
    expect(valueOf(text, 'chronicle_webhook_attempt_duration_seconds_bucket{le="0.025",outcome="delivered"}')).to.equal(1);
    expect(valueOf(text, 'chronicle_webhook_attempt_duration_seconds_bucket{le="10",outcome="retry"}')).to.equal(0);
  });
});
