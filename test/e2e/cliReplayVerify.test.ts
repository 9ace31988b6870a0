import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { DomainEvent } from '../../src/shared/Decider.js';
import { contactDecider } from '../../src/features/contacts/domain/contactDecider.js';
import { contactStream } from '../../src/features/contacts/domain/contactEvents.js';
import { liveContactSummaryOf } from '../../src/features/deals/domain/dealContactSummary.js';
import { dealDecider } from '../../src/features/deals/domain/dealDecider.js';
import { dealStream } from '../../src/features/deals/domain/dealEvents.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { newId } from '../../src/shared/ids.js';
import { runCli, startServer, type CliRun } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

const json = <T>(run: CliRun): T => {
  expect(run.code, run.stderr).to.equal(0);
  expect(run.stdout.trimEnd().split('\n')).to.have.length(1);
  return JSON.parse(run.stdout) as T;
};

const decided = <Ev extends DomainEvent>(result: E.Either<unknown, readonly Ev[]>): readonly Ev[] => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

interface ReplayJson {
  events: number;
  ms: number;
  eventsPerSecond: number;
  collections: number;
  position: string | null;
}

describe('chronicle CLI: replay and verify', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let companyId: string;
  const cli = (...args: string[]) => runCli(args, env);
  const logLength = async (): Promise<{ events: number; head: string | null }> => {
    const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
    try {
      return { events: (await store.readAll()).length, head: await store.headPosition() };
    } finally {
      await store.close();
    }
  };

  /** A log written as clients and operators write it: through the API of a running server and the CLI. */
  before(async () => {
    dir = tempDir();
    env = { DATA_DIR: dir.path, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RUN_WEBHOOKS: 'false' };
    const server = await startServer(env);
    try {
      const key = /API key (chr_\w+)/.exec(server.output())![1]!;
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        expect(response.status, text).to.be.lessThan(300);
        return JSON.parse(text) as { data: { id: string }; id?: string };
      };
      const ada = (await call('POST', '/contacts', { name: 'Ada', phoneNumber: '+44 20 7946 0000', tags: ['vip'] })).data;
      await call('POST', '/contacts', { name: 'Grace', phoneNumber: '+1 555 0100', email: 'grace@example.com' });
      const deal = (await call('POST', '/deals', { title: 'Engines', value: 1200, contactId: ada.id, stage: 'proposal' })).data;
      await call('PUT', `/contacts/${ada.id}`, { name: 'Ada Lovelace', email: 'ada@example.com' });
      await call('PUT', `/deals/${deal.id}/status`, { status: 'won' });
      const hook = await call('POST', '/webhooks/subscribe', { event: 'contact.created', target_url: 'http://127.0.0.1:9/hook' });
      await call('DELETE', `/webhooks/${hook.id ?? hook.data.id}`);
      companyId = json<{ id: string }>(await cli('companies', 'create', '--name', 'Acme', '--json')).id;
      const agent = json<{ id: string }>(await cli('agents', 'create', '--company', companyId, '--name', 'Bot', '--json'));
      json(await cli('agents', 'update', agent.id, '--status', 'paused', '--json'));
      json(await cli('users', 'create', '--company', companyId, '--name', 'Grace', '--email', 'grace@example.com', '--json'));
      const issued = json<{ id: string }>(await cli('keys', 'create', '--company', companyId, '--permissions', 'all', '--json'));
      json(await cli('keys', 'revoke', issued.id, '--json'));
    } finally {
      expect(await server.stop()).to.equal(0);
    }
  });
  after(() => dir.dispose());

  describe('replay', () => {
    it('rebuilds every read model from the whole log and prints one JSON summary', async () => {
      const { events, head } = await logLength();
      const summary = json<ReplayJson>(await cli('replay', '--json'));
      expect(summary).to.include({ events, position: head, collections: 23 });
      expect(summary.ms).to.be.a('number');
      expect(summary.eventsPerSecond).to.be.a('number');
    });

    it('prints one summary line without --json', async () => {
      const { events } = await logLength();
      const run = await cli('replay');
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout).to.match(
        new RegExp(`^Replayed ${events} events into 23 read models in .+ \\(\\d+ events/s\\); swapped into the live SQLite read models in one transaction, checkpoint at position \\d+$`, 'm'),
      );
      expect(run.stdout.trimEnd().split('\n')).to.have.length(1);
    });
  });

  describe('verify', () => {
    it('finds the read models equal to the folded streams of a real log and exits 0', async () => {
      const run = await cli('verify');
      expect(run.code, run.stdout + run.stderr).to.equal(0);
      expect(run.stdout.trimEnd().split('\n')).to.have.length(1);
      // 2 companies (the demo's and one more), 2 contacts, 1 deal, 1 subscription, 1 agent, 1 user and 2 keys
      // (the demo key and one revoked), the keys in both of their read models: 10 streams, 12 documents.
      const { events, head } = await logLength();
      expect(run.stdout).to.equal(
        `Verified 9 read models (contacts, deals, agents, users, api_keys, api_key_directory, webhooks, companies, admin_tokens) against ${events} events ` +
          `in 10 streams up to position ${head}: 12 documents, no differences\n`,
      );
      const report = json<{ equal: boolean; differences: unknown[]; documents: number }>(await cli('verify', '--json'));
      expect(report).to.deep.include({ equal: true, differences: [], documents: 12 });
    });

    it('lists a deal whose contact summary the log contradicts, and exits 1', async () => {
      // A deal created while its contact was being renamed: the deal took the old name, and the
      // rename landed first in the log, so the read model never applies it to the deal.
      const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
      const contactId = newId();
      const dealId = newId();
      try {
        const at = new Date().toISOString();
        const metadata = { source: 'api' as const, correlationId: newId(), companyId };
        const append = (stream: string, events: readonly DomainEvent[], expected: 'no_stream' | number) =>
          store.append(stream, events.map((event) => ({ ...event, id: newId(), metadata })), expected);
        const created = decided(contactDecider.decide({ type: 'CreateContact', contactId, companyId, fields: { name: 'Old', phoneNumber: '+4930123' }, at: new Date(at) }, contactDecider.initialState));
        const before = created.reduce((state, event) => contactDecider.evolve(state, event), contactDecider.initialState);
        if (before.status !== 'active') throw new Error('no contact');
        const summary = liveContactSummaryOf(before.contact);
        if (summary === null) throw new Error('no contact fields');
        await append(contactStream(contactId), created, 'no_stream');
        await append(contactStream(contactId), decided(contactDecider.decide({ type: 'UpdateContact', contactId, companyId, changes: { name: 'New' }, at: new Date(at) }, before)), 0);
        const deal = decided(
          dealDecider.decide(
            { type: 'CreateDeal', dealId, companyId, fields: { title: 'Raced', value: 1 }, contact: summary, assignedTo: null, at: new Date(at) },
            dealDecider.initialState,
          ),
        );
        await append(dealStream(dealId), deal, 'no_stream');
      } finally {
        await store.close();
      }

      const run = await cli('verify');
      expect(run.code).to.equal(1);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).to.equal(`deals ${companyId}/${dealId}: contact.name: log says "New", read model says "Old"`);
      expect(lines[1]).to.match(/in 12 streams up to position \d+: 14 documents, 1 difference$/);
      expect(lines).to.have.length(2);
      expect(run.stderr).to.contain('the read models and the log differ (1 difference)');

      const asJson = await cli('verify', '--json');
      expect(asJson.code).to.equal(1);
      const report = JSON.parse(asJson.stdout) as { equal: boolean; differences: unknown[] };
      expect(report.equal).to.equal(false);
      expect(report.differences).to.deep.equal([
        { kind: 'field', readModel: 'deals', document: `${companyId}/${dealId}`, field: 'contact.name', logValue: 'New', readModelValue: 'Old' },
      ]);
    });
  });
});
