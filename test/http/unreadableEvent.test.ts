import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { contactStream } from '../../src/features/contacts/domain/contactEvents.js';
import { loadGoldenLog, startOnGoldenLog, type GoldenServer } from '../support/goldenLog.js';
import { runCli } from '../support/runCli.js';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A log with an event that this release cannot read (a `ContactUpdated` stored
 * as version 3, as a newer release would write it), after release 92d4d5c's
 * golden log: the projector and the webhook fan-out stop right before it, once,
 * `/ready` answers 503 naming it, and `chronicle verify` lists it.
 */
describe('HTTP: an event of the log that this release cannot read', function () {
  this.timeout(60_000);
  const golden = loadGoldenLog('92d4d5c');
  const adaStream = contactStream(golden.credentials.ids.contacts.ada as string);
  let folder: string;
  let server: GoldenServer;
  let eventId: string;
  let position: string;

  before(async () => {
    // The golden log with one more event, appended to a copy as a newer release would have.
    folder = mkdtempSync(join(tmpdir(), 'chronicle-unreadable-'));
    copyFileSync(join(golden.folder, 'chronicle.sqlite'), join(folder, 'chronicle.sqlite'));
    const store = SqliteEventStore.open(join(folder, 'chronicle.sqlite'));
    eventId = randomUUID();
    ({ position } = await store.append(
      adaStream,
      [
        {
          id: eventId,
          type: 'ContactUpdated',
          data: { contactId: golden.credentials.ids.contacts.ada, reshaped: true },
          metadata: { source: 'api', correlationId: 'newer-release', companyId: golden.credentials.companyId, schemaVersion: 3 },
        },
      ],
      'any',
    ));
    await store.close();
    server = await startOnGoldenLog({ ...golden, folder });
  });
  after(async () => {
    await server?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const named = () => ({ eventId, stream: adaStream, type: 'ContactUpdated', position, version: 3 });

  it('stops the read models and the webhook fan-out right before it; /ready answers 503 saying why', async () => {
    const { projections, webhooks } = server.chronicle;
    expect(projections!.failure?.event).to.deep.equal(named());
    expect(BigInt(projections!.position!)).to.equal(BigInt(position) - 1n);
    expect(webhooks!.fanOut.failure?.event).to.deep.equal(named());

    const ready = await server.request('GET', '/ready', null);
    expect(ready.status).to.equal(503);
    const body = ready.body as { message: string; details: { checks: Record<string, unknown> } };
    expect(body.message).to.equal(
      `Not ready: projections stopped at event ${eventId} (ContactUpdated, version 3) at position ${position} in ${adaStream}, ` +
        'which this release cannot read, ' +
        `webhookFanOut stopped at event ${eventId} (ContactUpdated, version 3) at position ${position} in ${adaStream}, ` +
        'which this release cannot read.',
    );
    expect(body.details.checks.projections).to.deep.equal({ status: 'stopped', event: named() });
    expect(body.details.checks.webhookFanOut).to.deep.equal({ status: 'stopped', event: named() });
  });

  it('logs the stop once per subscription, and never a retry', async () => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = server
      .logs()
      .split('\n')
      .filter((line) => line.includes(eventId));
    expect(lines.filter((line) => line.includes('read models stopped'))).to.have.length(1);
    expect(lines.filter((line) => line.includes('webhook fan-out stopped'))).to.have.length(1);
    expect(server.logs()).not.to.contain('batch failed; retrying');
  });

  it('still serves what was read before it, and the key still authenticates', async () => {
    const ada = await server.request('GET', `/contacts/${golden.credentials.ids.contacts.ada}`, golden.credentials.key);
    expect(ada.status).to.equal(200);
  });

  it('is listed by chronicle verify as a difference naming it (exit code 1)', async () => {
    const run = await runCli(['verify', '--json'], { DATA_DIR: server.dataDir });
    expect(run.code, run.stderr).to.equal(1);
    const report = JSON.parse(run.stdout) as { differences: Record<string, unknown>[]; equal: boolean };
    expect(report.equal).to.equal(false);
    expect(report.differences).to.have.length(1);
    expect(report.differences[0]).to.include({ kind: 'undecodable-event', eventId, stream: adaStream, type: 'ContactUpdated', position, version: 3 });
    const readable = await runCli(['verify'], { DATA_DIR: server.dataDir });
    expect(readable.stdout).to.contain(`log ${adaStream}: event ${eventId} (ContactUpdated, version 3) at position ${position} does not decode`);
  });

  it('ends chronicle events tail at it with exit code 1, after printing the events before it', async () => {
    const run = await runCli(['events', 'tail', '--from-start'], { DATA_DIR: server.dataDir });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`Event ${eventId} (ContactUpdated, version 3) at position ${position} in ${adaStream} does not decode`);
    expect(run.stdout.trim().split('\n')).to.have.length(Number(position) - 1);
  });

  it('makes chronicle keys list fail naming it rather than list what comes before it', async () => {
    const run = await runCli(['keys', 'list', '--company', golden.credentials.companyId as string], { DATA_DIR: server.dataDir });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`Event ${eventId} (ContactUpdated, version 3) at position ${position}`);
  });
});
