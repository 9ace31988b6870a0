'use strict';

const assert = require('node:assert/strict');
const { loadApp } = require('../lib/app');
const { createRuntime, MakeError } = require('../lib/runtime');
const { startChronicle, startReceiver, waitFor, makeKey } = require('./support/chronicle');

const EVENT_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.restored',
  'contact.erased',
  'deal.created',
  'deal.updated',
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'deal.deleted',
  'deal.restored',
];
const pascal = (type) => type.split(/[._]/).map((part) => part[0].toUpperCase() + part.slice(1)).join('');
const pollingOf = (type) => `watch${pascal(type)}`;
const instantOf = (type) => `instant${pascal(type)}`;

/** The fields of a bundle against a module's interface: the same top-level names, and the same names inside each filled collection. */
const assertMatchesInterface = (bundle, iface, what) => {
  assert.deepEqual(Object.keys(bundle).sort(), iface.map((f) => f.name).sort(), `${what}: fields`);
  for (const field of iface.filter((f) => f.type === 'collection')) {
    const value = bundle[field.name];
    if (value !== null && value !== undefined) assert.deepEqual(Object.keys(value).sort(), field.spec.map((f) => f.name).sort(), `${what}: ${field.name}`);
  }
};

/**
 * Conformance, part 3: each module's communication, run by the evaluator against a real Chronicle
 * (the root's built server on 127.0.0.1) and a local receiver standing in for Make's webhook
 * addresses. What this cannot show (Make's own runtime, its scheduler, its UI) is listed in
 * docs/integrators/zapier-and-make.md.
 */
describe('Make app against a live Chronicle', function () {
  this.timeout(90_000);
  const app = loadApp();
  const runtime = createRuntime({ app });
  let chronicle;
  let receiver;
  let connection;
  let phoneSeq = 2000;
  const newPhone = () => `+49 171 555 ${phoneSeq++}`;

  before(async () => {
    chronicle = await startChronicle();
    receiver = await startReceiver();
    const key = await makeKey(chronicle);
    connection = (await runtime.connect({ baseUrl: chronicle.baseUrl, apiKey: key })).connection;
  });
  after(async () => {
    if (receiver) await receiver.stop();
    if (chronicle) await chronicle.stop();
  });

  describe('connection', () => {
    it('checks the key with GET /test and labels the connection with the company', async () => {
      const checked = await runtime.connect({ baseUrl: chronicle.baseUrl, apiKey: connection.apiKey });
      assert.deepEqual(checked.metadata, { type: 'text', value: `Company ${chronicle.companyId}` });
    });

    it('fails with the API\'s message for a wrong key', async () => {
      await assert.rejects(runtime.connect({ baseUrl: chronicle.baseUrl, apiKey: 'chr_nonsense' }), (e) => e instanceof MakeError && e.statusCode === 401 && /Invalid API key/.test(e.message));
    });
  });

  describe('actions, searches and RPCs', () => {
    it('creates a contact, then the search finds it by part of its name, phone or email, and Get a Contact returns it', async () => {
      const phone = newPhone();
      const [created] = await runtime.run('createContact', connection, { name: 'Marguerite Searchable', phoneNumber: phone, email: 'marguerite@example.com', tags: ['make'], city: '' });
      assertMatchesInterface(created, app.components.module.createContact.codes.interface, 'createContact');
      assert.equal(created.city, null, 'an empty field is not sent');
      for (const search of ['Searchable', 'marguerite@', created.phoneNumber.slice(-4)]) {
        const found = await runtime.run('searchContacts', connection, { search });
        assert.deepEqual(found.map((c) => c.id), [created.id], search);
        assertMatchesInterface(found[0], app.components.module.searchContacts.codes.interface, 'searchContacts');
      }
      assert.deepEqual(await runtime.run('searchContacts', connection, { search: 'nobody-by-this-name' }), []);
      const [got] = await runtime.run('getContact', connection, { contactId: created.id });
      assert.deepEqual(got, created);
    });

    it('creates a contact once for one Idempotency Key', async () => {
      const phone = newPhone();
      const input = { name: 'Twice', phoneNumber: phone, idempotencyKey: `make-${phone}` };
      const [first] = await runtime.run('createContact', connection, input);
      const [again] = await runtime.run('createContact', connection, input);
      assert.equal(again.id, first.id);
    });

    it('updates a contact: the fields given change, the others keep their value', async () => {
      const [created] = await runtime.run('createContact', connection, { name: 'To Update', phoneNumber: newPhone(), city: 'Leipzig', email: 'update@example.com' });
      const [updated] = await runtime.run('updateContact', connection, { contactId: created.id, city: 'Dresden', email: '' });
      assertMatchesInterface(updated, app.components.module.updateContact.codes.interface, 'updateContact');
      assert.equal(updated.city, 'Dresden');
      assert.equal(updated.email, 'update@example.com');
      assert.equal(updated.name, 'To Update');
    });

    it('creates a deal for a contact and a user, changes its status and stage, and Get a Deal returns it; errors carry the API\'s message', async () => {
      const [contact] = await runtime.run('createContact', connection, { name: 'Deal Owner', phoneNumber: newPhone() });
      const user = await chronicle.cli('users', 'create', '--company', chronicle.companyId, '--name', 'Ada Seller', '--email', 'ada@example.com');
      const [deal] = await runtime.run('createDeal', connection, {
        title: 'Make deal',
        value: '1500.5',
        priority: 'high',
        probability: '60',
        expectedCloseDate: '2026-12-31',
        contactId: contact.id,
        assignedToId: user.id,
      });
      assertMatchesInterface(deal, app.components.module.createDeal.codes.interface, 'createDeal');
      assert.equal(deal.value, 1500.5);
      assert.equal(deal.contact.id, contact.id);
      assert.equal(deal.assignedTo.id, user.id);
      const [won] = await runtime.run('changeDealStatus', connection, { dealId: deal.id, status: 'won', stage: 'Closed' });
      assertMatchesInterface(won, app.components.module.changeDealStatus.codes.interface, 'changeDealStatus');
      assert.equal(won.status, 'won');
      assert.equal(won.stage, 'Closed');
      const [got] = await runtime.run('getDeal', connection, { dealId: deal.id });
      assert.deepEqual(got, won);
      await assert.rejects(runtime.run('changeDealStatus', connection, { dealId: '00000000-0000-4000-8000-000000000000', status: 'won' }), (e) => e.statusCode === 404 && /Deal not found/.test(e.message));
      await assert.rejects(runtime.run('createDeal', connection, { title: 'No value' }), (e) => e.statusCode === 422);
    });

    it('offers contacts, deals and the users deals are assigned to as choices (each user once)', async () => {
      const [contact] = await runtime.run('createContact', connection, { name: 'Choice Contact', phoneNumber: newPhone() });
      const user = await chronicle.cli('users', 'create', '--company', chronicle.companyId, '--name', 'Bo Closer', '--email', 'bo@example.com');
      const deals = [];
      for (const title of ['Choice A', 'Choice B']) deals.push((await runtime.run('createDeal', connection, { title, value: 1, assignedToId: user.id }))[0]);
      const contacts = await runtime.rpc('listContacts', connection);
      assert.ok(contacts.some((c) => c.value === contact.id && c.label === `Choice Contact (${contact.phoneNumber})`));
      const dealChoices = await runtime.rpc('listDeals', connection);
      for (const deal of deals) assert.ok(dealChoices.some((d) => d.value === deal.id && d.label === `${deal.title} (open)`));
      const users = await runtime.rpc('listAssignedUsers', connection);
      assert.deepEqual(users.filter((u) => u.value === user.id), [{ label: 'Bo Closer (bo@example.com)', value: user.id }]);
      for (const choice of users) assert.ok(choice.value, 'no deal without a user becomes a choice');
    });
  });

  describe('triggers, polling and instant, one of each event', () => {
    const kept = {};
    const pollState = {};
    let contact;
    let deal;
    let forgotten;

    before(async () => {
      // Instant: attach a dedicated webhook per event type, Make's address standing in as the local receiver.
      for (const type of EVENT_TYPES) {
        const webhook = app.components.module[instantOf(type)].meta.webhook;
        kept[type] = await runtime.attach(webhook, connection, { id: 1000 + EVENT_TYPES.indexOf(type), url: `${receiver.url}/hooks/${type}` });
      }
      // Polling: each trigger starts "from now on" (the epoch choice), so only what follows is new.
      const now = Date.now();
      for (const type of EVENT_TYPES) pollState[type] = { date: now, ids: [] };

      [contact] = await runtime.run('createContact', connection, { name: 'Hook Contact', phoneNumber: newPhone(), email: 'hook@example.com' });
      await runtime.run('updateContact', connection, { contactId: contact.id, city: 'Leipzig' });
      [deal] = await runtime.run('createDeal', connection, { title: 'Hook Deal', value: 2500, contactId: contact.id });
      await runtime.run('changeDealStatus', connection, { dealId: deal.id, stage: 'Qualified' });
      await runtime.run('changeDealStatus', connection, { dealId: deal.id, status: 'won' });
      await runtime.run('changeDealStatus', connection, { dealId: deal.id, status: 'lost' });
      for (const path of [`/deals/${deal.id}`, `/contacts/${contact.id}`]) {
        assert.equal((await chronicle.request('DELETE', path, connection.apiKey)).status, 200);
        assert.equal((await chronicle.request('POST', `${path}/restore`, connection.apiKey, {})).status, 200);
      }
      [forgotten] = await runtime.run('createContact', connection, { name: 'Forgotten Contact', phoneNumber: newPhone() });
      assert.equal((await chronicle.request('POST', `/contacts/${forgotten.id}/erase`, await chronicle.eraserKey(), {})).status, 200);
      await waitFor(() => EVENT_TYPES.every((type) => receiver.deliveries.some((d) => d.path === `/hooks/${type}`)), 20_000, 'a delivery of every event type');
    });

    it('attach subscribes with Make\'s webhook address and keeps the subscription id (not the secret)', async () => {
      const listed = await chronicle.request('GET', '/webhooks', connection.apiKey);
      for (const type of EVENT_TYPES) {
        assert.deepEqual(Object.keys(kept[type]), ['subscriptionId'], type);
        const subscription = listed.body.data.find((s) => s.id === kept[type].subscriptionId);
        assert.ok(subscription, type);
        assert.equal(subscription.event_type, type);
        assert.equal(subscription.target_url, `${receiver.url}/hooks/${type}`);
      }
    });

    it('a first poll returns the new records (each change once) and a second returns nothing new', async () => {
      const expectedIds = (type) => (type === 'contact.erased' ? [forgotten.id] : type.startsWith('contact.') ? [contact.id] : [deal.id]);
      for (const type of EVENT_TYPES) {
        const module = pollingOf(type);
        const first = await runtime.poll(module, connection, {}, pollState[type]);
        assert.ok(first.bundles.length >= 1, `${type}: the new record`);
        for (const bundle of first.bundles) {
          assert.ok(expectedIds(type).includes(bundle.id), `${type}: ${bundle.id}`);
          assertMatchesInterface(bundle, app.components.module[module].codes.interface, module);
        }
        assert.equal(new Set(first.bundles.map((b) => b.eventId)).size, first.bundles.length, `${type}: one bundle per change`);
        const second = await runtime.poll(module, connection, {}, first.state);
        assert.deepEqual(second.bundles, [], `${type}: nothing new`);
        pollState[type] = first.state;
      }
      // Three changes of the deal's status or stage: three deal.updated bundles.
      const updated = await runtime.poll(pollingOf('deal.updated'), connection, {}, null);
      assert.ok(updated.bundles.filter((b) => b.id === deal.id).length >= 3);
    });

    it('a later change is one new bundle for the next poll', async () => {
      await runtime.run('changeDealStatus', connection, { dealId: deal.id, stage: 'Negotiation' });
      const next = await runtime.poll(pollingOf('deal.stage_changed'), connection, {}, pollState['deal.stage_changed']);
      assert.equal(next.bundles.length, 1);
      assert.equal(next.bundles[0].id, deal.id);
      assert.equal(next.bundles[0].stage, 'Negotiation');
      assert.deepEqual((await runtime.poll(pollingOf('deal.stage_changed'), connection, {}, next.state)).bundles, []);
    });

    it('offers the recent records in the epoch panel, each with a label and a date', async () => {
      const choices = await runtime.epoch(pollingOf('deal.created'), connection, {});
      const choice = choices.find((c) => c.label === 'Hook Deal');
      assert.ok(choice);
      assert.equal(choice.date, deal.createdAt);
      const erased = await runtime.epoch(pollingOf('contact.erased'), connection, {});
      assert.ok(erased.some((c) => c.label === forgotten.id));
    });

    it('turns each delivery into one bundle: the event\'s data and its eventId, the polled record\'s twin', async () => {
      for (const type of EVENT_TYPES) {
        const module = instantOf(type);
        const polled = await runtime.poll(pollingOf(type), connection, {}, null);
        const deliveries = receiver.deliveries.filter((d) => d.path === `/hooks/${type}`);
        assert.ok(deliveries.length > 0, type);
        for (const delivery of deliveries) {
          const bundles = await runtime.instant(module, connection, kept[type], { body: delivery.body, headers: delivery.headers });
          assert.equal(bundles.length, 1);
          const [bundle] = bundles;
          assert.deepEqual(bundle, { ...delivery.body.data, eventId: delivery.body.metadata.eventId }, type);
          assertMatchesInterface(bundle, app.components.module[module].codes.interface, module);
          // The erased contact's earlier records leave the recent triggers; the others are polled too, alike.
          const twin = polled.bundles.find((b) => b.eventId === bundle.eventId);
          if (type === 'contact.erased' || bundle.id !== forgotten.id) assert.deepEqual(twin, bundle, `${type}: polled and delivered alike`);
        }
      }
    });

    it('detach unsubscribes (DELETE /webhooks/unsubscribe): the subscriptions are no longer listed', async () => {
      for (const type of EVENT_TYPES) {
        const response = await runtime.detach(app.components.module[instantOf(type)].meta.webhook, connection, kept[type]);
        assert.equal(response.statusCode, 200);
        assert.equal(response.request.method, 'DELETE');
        assert.deepEqual(response.request.body, { subscription_id: kept[type].subscriptionId });
      }
      const listed = await chronicle.request('GET', '/webhooks', connection.apiKey);
      const ids = new Set(listed.body.data.map((s) => s.id));
      for (const type of EVENT_TYPES) assert.equal(ids.has(kept[type].subscriptionId), false, type);
    });
  });
});
