'use strict';

const assert = require('node:assert/strict');
const { loadApp } = require('../lib/app');
const { checkReferences } = require('../lib/references');
const { brokenCopy } = require('./support/appCopy');

/**
 * Conformance, part 2: the schemas check the structure only, not the `{{…}}` inside. Every
 * parameters.*, connection.*, webhook.* and temp.* reference must resolve to something declared,
 * and the components must name one another correctly.
 */
describe('Make app: references', () => {
  const app = loadApp();

  it('every parameters.*, connection.*, webhook.* and temp.* reference resolves', () => {
    assert.deepEqual(checkReferences(app), []);
  });

  describe('a copy with a reference to nothing fails, naming it', () => {
    const cases = [
      ['a misspelt parameter', 'modules/create-deal/create-deal.communication.iml.json', (c) => ({ ...c, url: '/deals?x={{parameters.titel}}' }), /module createDeal communication url: .*parameters\.titel is not declared/],
      ['a connection field that does not exist', 'general/base.iml.json', (b) => ({ ...b, headers: { Authorization: 'Bearer {{connection.token}}' } }), /base headers\.Authorization: .*connection\.token is not declared/],
      ['a detach reading what attach did not keep', 'webhooks/deal-won-hook/deal-won-hook.detach.iml.json', (d) => ({ ...d, body: { subscription_id: '{{webhook.hookId}}' } }), /webhook dealWonHook detach body\.subscription_id: .*webhook\.hookId is not declared/],
      ['a temp variable never set', 'modules/get-deal/get-deal.communication.iml.json', (c) => ({ ...c, response: { output: '{{temp.deal}}' } }), /module getDeal communication response\.output: .*temp\.deal is not declared/],
      ['webhook data in a module without a webhook', 'modules/get-contact/get-contact.communication.iml.json', (c) => ({ ...c, url: '/contacts/{{webhook.subscriptionId}}' }), /module getContact communication url: .*webhook is not available here/],
      ['a variable Make does not provide', 'modules/get-contact/get-contact.communication.iml.json', (c) => ({ ...c, url: '/contacts/{{paramters.contactId}}' }), /unknown variable paramters/],
    ];
    for (const [what, path, edit, expected] of cases) {
      it(`${what} (${path})`, () => {
        const copy = brokenCopy(path, edit);
        try {
          const problems = checkReferences(loadApp(copy.dir));
          assert.equal(problems.length, 1, problems.join('\n'));
          assert.match(problems[0], expected);
        } finally {
          copy.remove();
        }
      });
    }
  });

  it('each instant trigger names a webhook of the same connection that attaches and detaches', () => {
    const instant = Object.values(app.components.module).filter((m) => m.meta.moduleType === 'instant_trigger');
    assert.ok(instant.length > 0);
    for (const module of instant) {
      const webhook = app.components.webhook[module.meta.webhook];
      assert.ok(webhook, module.id);
      assert.equal(webhook.meta.connection, module.meta.connection);
      assert.ok(webhook.codes.attach && webhook.codes.detach, webhook.id);
      assert.ok(webhook.codes.attach.response.data.subscriptionId, webhook.id);
    }
  });

  it('each rpc:// option names an RPC of the app, and each group names modules that exist (every module in one group)', () => {
    const options = [];
    for (const module of Object.values(app.components.module)) {
      for (const field of module.codes.mappableParams || []) if (typeof field.options === 'string') options.push([module.id, field.options]);
    }
    assert.ok(options.length > 0);
    for (const [id, option] of options) {
      const match = /^rpc:\/\/(\w+)$/.exec(option);
      assert.ok(match && app.components.rpc[match[1]], `${id}: ${option}`);
    }
    const grouped = app.general.groups.flatMap((g) => g.modules);
    assert.deepEqual([...grouped].sort(), Object.keys(app.components.module).sort());
  });

  it('each module\'s sample has the fields of its interface', () => {
    for (const module of Object.values(app.components.module)) {
      assert.deepEqual(Object.keys(module.codes.samples).sort(), module.codes.interface.map((f) => f.name).sort(), module.id);
    }
  });
});
