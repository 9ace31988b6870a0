'use strict';

const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');
const { compileApp, validateApp } = require('zapier-platform-core/src/tools/schema');
const App = require('..');
const samples = require('../lib/samples.json');
const { EVENTS, triggerKey } = require('../lib/triggers');
const { CONTACT_FIELDS, DEAL_FIELDS, STATUS_FIELDS } = require('../lib/creates');
const { startChronicle, startReceiver, waitFor } = require('./support/chronicle');

/**
 * The Zapier integration against a real Chronicle (the root package's built
 * server on 127.0.0.1), run through zapier-platform-core's app tester, with a local
 * receiver standing in for Zapier's hook URLs: real deliveries, signatures checked.
 */
describe('Zapier integration', function () {
  this.timeout(60_000);
  const appTester = zapier.createAppTester(App);
  let chronicle;
  let receiver;
  let authData;
  let openApi;

  before(async () => {
    chronicle = await startChronicle();
    receiver = await startReceiver();
    authData = { baseUrl: chronicle.baseUrl, apiKey: await chronicle.zapierKey() };
    openApi = await (await fetch(`${chronicle.baseUrl}/openapi.json`)).json();
  });
  after(async () => {
    if (receiver) await receiver.stop();
    if (chronicle) await chronicle.stop();
  });

  let phoneSeq = 1000;
  const newPhone = () => `+49 170 555 ${phoneSeq++}`;
  const run = (method, inputData = {}, extra = {}) => appTester(method, { authData, inputData, ...extra });

  /** A component schema of the served document, its `$ref`s resolved one level. */
  const schema = (name) => openApi.components.schemas[name];
  const resolve = (s) => (s && s.$ref ? schema(s.$ref.split('/').pop()) : s);

  describe('definition', () => {
    it('is valid for the platform (zapier-platform-schema, as zapier-platform-core compiles it)', () => {
      assert.deepEqual(validateApp(compileApp(App)), []);
    });

    it('has a REST-hook trigger for each event type the API documents, eventId its primary key', () => {
      const documented = schema('WebhookEventType').enum;
      assert.deepEqual(EVENTS.map((e) => e.type).sort(), [...documented].sort());
      for (const type of documented) {
        const trigger = App.triggers[triggerKey(type)];
        assert.equal(trigger.operation.type, 'hook', type);
        for (const step of ['performSubscribe', 'performUnsubscribe', 'perform', 'performList']) assert.equal(typeof trigger.operation[step], 'function');
        assert.deepEqual(trigger.operation.outputFields.filter((f) => f.primary).map((f) => f.key), ['eventId']);
      }
    });

    it('has input fields that are the request bodies of the OpenAPI document (names, required ones, choices)', () => {
      const check = (fields, schemaName, ignore = []) => {
        const body = schema(schemaName);
        const keys = fields.map((f) => f.key).filter((k) => !ignore.includes(k));
        for (const key of keys) assert.ok(body.properties[key], `${schemaName} has no ${key}`);
        assert.deepEqual(
          fields.filter((f) => f.required).map((f) => f.key).filter((k) => !ignore.includes(k)).sort(),
          [...(body.required || [])].sort(),
          `required fields of ${schemaName}`,
        );
        for (const field of fields.filter((f) => f.choices)) {
          const property = resolve(body.properties[field.key]);
          const values = property.enum || (property.oneOf || property.anyOf || []).flatMap((s) => resolve(s).enum || []);
          assert.deepEqual([...field.choices].sort(), [...values].filter((v) => v !== null).sort(), `${schemaName}.${field.key}`);
        }
      };
      check(CONTACT_FIELDS, 'ContactCreate');
      check(DEAL_FIELDS, 'DealCreate');
      check(STATUS_FIELDS, 'DealStatusChange', ['dealId']);
      for (const key of ['create_contact', 'create_deal']) {
        assert.ok(App.creates[key].operation.inputFields.some((f) => f.key === 'idempotencyKey'), key);
      }
    });

    it('has samples equal to what the server shows a company without records', async () => {
      const company = await chronicle.cli('companies', 'create', '--name', 'Sample Co');
      const key = await chronicle.zapierKey(company.id);
      for (const { type } of EVENTS) {
        const served = await chronicle.request('GET', `/triggers/${type}/sample`, key);
        assert.equal(served.status, 200);
        assert.deepEqual(App.triggers[triggerKey(type)].operation.sample, served.body, type);
      }
      const { eventId, ...contact } = samples.triggers['contact.created'];
      assert.ok(eventId);
      assert.deepEqual(App.creates.create_contact.operation.sample, contact);
      assert.deepEqual(Object.keys(App.creates.create_deal.operation.sample).sort(), [...schema('Deal').required].sort());
    });
  });

  describe('authentication', () => {
    it('tests the key with GET /test and labels the connection with the company', async () => {
      const result = await appTester(App.authentication.test, { authData });
      assert.equal(result.success, true);
      assert.equal(result.data.companyId, chronicle.companyId);
      assert.ok(result.data.permissions.includes('webhooks:write'));
      const label = await appTester(App.authentication.connectionLabel, { authData, inputData: result });
      assert.equal(label, `Company ${chronicle.companyId}`);
    });

    it('fails with the API\'s message for a wrong key', async () => {
      await assert.rejects(
        appTester(App.authentication.test, { authData: { ...authData, apiKey: 'chr_nonsense' } }),
        (error) => /Invalid API key/.test(error.message),
      );
    });
  });

  describe('REST-hook triggers, with real deliveries', () => {
    const subscriptions = {};
    let contact;
    let deal;
    /** A second contact, erased once made: its `contact.created` leaves the recent triggers, and `contact.erased` carries its id. */
    let forgotten;

    before(async () => {
      for (const { type } of EVENTS) {
        subscriptions[type] = await run(App.triggers[triggerKey(type)].operation.performSubscribe, {}, { targetUrl: `${receiver.url}/hooks/${type}` });
      }
      // One of each event: a contact created and updated, a deal created, moved, won and lost; then each
      // deleted and restored (restored, their records are back in the recent triggers); and another contact erased.
      contact = await run(App.creates.create_contact.operation.perform, { name: 'Hook Contact', phoneNumber: newPhone(), email: 'hook@example.com' });
      assert.equal((await chronicle.request('PUT', `/contacts/${contact.id}`, authData.apiKey, { city: 'Leipzig' })).status, 200);
      deal = await run(App.creates.create_deal.operation.perform, { title: 'Hook Deal', value: '2500', contactId: contact.id });
      await run(App.creates.change_deal_status.operation.perform, { dealId: deal.id, stage: 'Qualified' });
      await run(App.creates.change_deal_status.operation.perform, { dealId: deal.id, status: 'won' });
      await run(App.creates.change_deal_status.operation.perform, { dealId: deal.id, status: 'lost' });
      for (const path of [`/deals/${deal.id}`, `/contacts/${contact.id}`]) {
        assert.equal((await chronicle.request('DELETE', path, authData.apiKey)).status, 200);
        assert.equal((await chronicle.request('POST', `${path}/restore`, authData.apiKey, {})).status, 200);
      }
      forgotten = await run(App.creates.create_contact.operation.perform, { name: 'Forgotten Contact', phoneNumber: newPhone() });
      assert.equal((await chronicle.request('POST', `/contacts/${forgotten.id}/erase`, await chronicle.eraserKey(), {})).status, 200);
      const expected = { 'deal.updated': 3 };
      await waitFor(
        () => EVENTS.every(({ type }) => receiver.deliveries.filter((d) => d.path === `/hooks/${type}`).length >= (expected[type] || 1)),
        20_000,
        'a delivery of every event type',
      );
    });

    it('subscribes with the hook URL and keeps the subscription id and its signing secret', () => {
      for (const { type } of EVENTS) {
        const data = subscriptions[type];
        assert.equal(data.event, type);
        assert.equal(data.target_url, `${receiver.url}/hooks/${type}`);
        assert.match(data.secret, /^whsec_/);
      }
    });

    it('turns each signed delivery into one record: the event\'s data with its eventId', async () => {
      for (const { type } of EVENTS) {
        for (const delivery of receiver.deliveries.filter((d) => d.path === `/hooks/${type}`)) {
          const records = await run(App.triggers[triggerKey(type)].operation.perform, {}, {
            subscribeData: subscriptions[type],
            cleanedRequest: delivery.body,
            rawRequest: { headers: delivery.headers, content: delivery.raw },
          });
          assert.equal(records.length, 1);
          const [record] = records;
          assert.equal(record.eventId, delivery.body.metadata.eventId);
          assert.equal(record.eventId, delivery.headers['webhook-id']);
          const ids = type === 'contact.erased' ? [forgotten.id] : type === 'contact.created' ? [contact.id, forgotten.id] : [type.startsWith('contact.') ? contact.id : deal.id];
          assert.ok(ids.includes(record.id), `${type}: ${record.id}`);
        }
      }
    });

    it('refuses a delivery whose body was changed or whose signature is missing', async () => {
      const delivery = receiver.deliveries.find((d) => d.path === '/hooks/deal.won');
      const operation = App.triggers.deal_won.operation;
      const forged = delivery.raw.replace('"won"', '"lost"');
      await assert.rejects(
        run(operation.perform, {}, { subscribeData: subscriptions['deal.won'], cleanedRequest: JSON.parse(forged), rawRequest: { headers: delivery.headers, content: forged } }),
        /signature does not verify/,
      );
      await assert.rejects(
        run(operation.perform, {}, { subscribeData: subscriptions['deal.won'], cleanedRequest: delivery.body, rawRequest: { headers: {}, content: delivery.raw } }),
        /Unsigned delivery/,
      );
    });

    it('lists the same records, with the same eventIds, through performList (GET /triggers/:type/recent)', async () => {
      for (const { type } of EVENTS) {
        const listed = await run(App.triggers[triggerKey(type)].operation.performList);
        // An erased contact's records leave the recent triggers (its contact.erased stays).
        const delivered = receiver.deliveries
          .filter((d) => d.path === `/hooks/${type}` && (type === 'contact.erased' || d.body.data.id !== forgotten.id))
          .map((d) => d.body.metadata.eventId);
        assert.deepEqual(listed.map((r) => r.eventId).sort(), [...delivered].sort(), type);
      }
    });

    it('unsubscribes: the subscriptions are no longer listed', async () => {
      for (const { type } of EVENTS) {
        await appTester(App.triggers[triggerKey(type)].operation.performUnsubscribe, { authData, subscribeData: subscriptions[type] });
      }
      const listed = await chronicle.request('GET', '/webhooks', authData.apiKey);
      const ids = new Set(listed.body.data.map((s) => s.id));
      for (const { type } of EVENTS) assert.equal(ids.has(subscriptions[type].id), false, type);
    });
  });

  describe('polling: one Zap run per change', () => {
    /** Zapier's polling de-duplication: a record starts a run once per primary key (eventId here). */
    const poller = (type) => {
      const seen = new Set();
      const operation = App.triggers[triggerKey(type)].operation;
      const primary = operation.outputFields.filter((f) => f.primary).map((f) => f.key);
      return async () => {
        const fresh = [];
        for (const record of await run(operation.performList)) {
          const key = primary.map((k) => record[k]).join('|');
          if (!seen.has(key)) fresh.push(record);
          seen.add(key);
        }
        return fresh;
      };
    };

    it('starts a run for every stage change of one deal, and for a deal won again after a correction', async () => {
      const stageChanged = poller('deal.stage_changed');
      const won = poller('deal.won');
      await stageChanged();
      await won();
      const created = await run(App.creates.create_deal.operation.perform, { title: 'Polled', value: 10, stage: 'Lead' });
      const stages = [];
      for (const stage of ['Qualified', 'Proposal', 'Negotiation']) {
        await run(App.creates.change_deal_status.operation.perform, { dealId: created.id, stage });
        const fresh = await stageChanged();
        assert.equal(fresh.length, 1, `a run for ${stage}`);
        assert.equal(fresh[0].id, created.id);
        stages.push(fresh[0].stage);
      }
      assert.deepEqual(stages, ['Qualified', 'Proposal', 'Negotiation']);
      assert.equal((await stageChanged()).length, 0, 'nothing new: no run');

      for (const status of ['won', 'lost', 'won']) await run(App.creates.change_deal_status.operation.perform, { dealId: created.id, status });
      const wins = await won();
      assert.equal(wins.length, 2);
      assert.deepEqual(wins.map((r) => r.id), [created.id, created.id]);
    });
  });

  describe('actions and the search', () => {
    it('creates a contact once for one Idempotency Key, and finds it by phone number in any format or by e-mail', async () => {
      const phone = newPhone();
      const input = { name: 'Search Me', phoneNumber: phone, email: 'Search.Me@Example.com', tags: ['zap'], idempotencyKey: `zap-${phone}` };
      const first = await run(App.creates.create_contact.operation.perform, input);
      const again = await run(App.creates.create_contact.operation.perform, input);
      assert.equal(again.id, first.id);
      assert.deepEqual(first.tags, ['zap']);

      const byPhone = await run(App.searches.find_contact.operation.perform, { phoneNumber: `00${phone.slice(1).replace(/ /g, '-')}` });
      assert.deepEqual(byPhone.map((c) => c.id), [first.id]);
      const byEmail = await run(App.searches.find_contact.operation.perform, { email: 'search.me@example.COM' });
      assert.deepEqual(byEmail.map((c) => c.id), [first.id]);
      assert.deepEqual(await run(App.searches.find_contact.operation.perform, { email: 'nobody@example.com' }), []);
    });

    it('creates a deal for a contact and changes its status and stage; errors carry the API\'s message', async () => {
      const contact = await run(App.creates.create_contact.operation.perform, { name: 'Deal Owner', phoneNumber: newPhone() });
      const deal = await run(App.creates.create_deal.operation.perform, {
        title: 'Zap deal',
        value: '1500.5',
        priority: 'high',
        probability: '60',
        expectedCloseDate: '2026-12-31',
        contactId: contact.id,
      });
      assert.equal(deal.value, 1500.5);
      assert.equal(deal.contact.id, contact.id);
      const won = await run(App.creates.change_deal_status.operation.perform, { dealId: deal.id, status: 'won', stage: 'Closed' });
      assert.equal(won.status, 'won');
      assert.equal(won.stage, 'Closed');
      await assert.rejects(
        run(App.creates.change_deal_status.operation.perform, { dealId: '00000000-0000-4000-8000-000000000000', status: 'won' }),
        /Deal not found/,
      );
      await assert.rejects(run(App.creates.create_deal.operation.perform, { title: 'No value' }), /value/);
    });
  });
});
