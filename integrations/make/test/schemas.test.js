'use strict';

const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { APP_DIR, appFiles, filesOnDisk, loadApp } = require('../lib/app');
const { SCHEMA_DIR, loadSchemas } = require('../lib/schemas');
const { brokenCopy } = require('./support/appCopy');

/**
 * Conformance to Make's published specification, part 1: every file of the app against the JSON
 * Schemas Make's Apps Editor validates them with (../shared/make-app-schemas/, used in place),
 * each file matched to its schema by the editor's own file patterns.
 */
describe('Make app: files against Make\'s published schemas', () => {
  const schemas = loadSchemas();
  const app = loadApp();
  const validateAll = (dir) => appFiles(dir).map((path) => ({ path, ...schemas.validateFile(dir, path) }));

  it('reads the schemas from ../shared/make-app-schemas beside the checkout', () => {
    assert.ok(existsSync(join(SCHEMA_DIR, 'file-patterns.json')), SCHEMA_DIR);
    assert.equal(schemas.schemaFor('makecomapp.json'), 'makecomapp.schema.json');
    assert.equal(schemas.schemaFor('modules/a/a.communication.iml.json'), 'api.json');
    assert.equal(schemas.schemaFor('webhooks/a/a.attach.iml.json'), 'api.json');
    assert.equal(schemas.schemaFor('modules/a/a.epoch.iml.json'), 'epoch.json');
    assert.equal(schemas.schemaFor('modules/a/a.interface.iml.json'), 'parameters.json');
    assert.equal(schemas.schemaFor('general/base.iml.json'), 'base.json');
  });

  it('has makecomapp.json and exactly the files it names, in the editor\'s layout (<folder>/<id>/<id>.<code>.iml.json)', () => {
    assert.deepEqual(filesOnDisk().sort(), appFiles().filter((p) => p !== 'makecomapp.json').sort());
    const folders = { connection: 'connections', module: 'modules', webhook: 'webhooks', rpc: 'rpcs' };
    for (const [type, folder] of Object.entries(folders)) {
      for (const { id, meta } of Object.values(app.components[type])) {
        const kebab = id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
        for (const path of Object.values(meta.codeFiles)) assert.match(path, new RegExp(`^${folder}/${kebab}/${kebab}\\.[a-z-]+\\.iml\\.json$`), `${type} ${id}`);
      }
    }
  });

  it('matches a schema to every file', () => {
    for (const path of appFiles()) assert.ok(schemas.schemaFor(path), path);
  });

  it('makecomapp.json and the general codes (base, common, groups) validate', () => {
    for (const path of ['makecomapp.json', app.manifest.generalCodeFiles.base, app.manifest.generalCodeFiles.common, app.manifest.generalCodeFiles.groups]) {
      assert.deepEqual(schemas.validateFile(APP_DIR, path).errors, [], path);
    }
  });

  for (const type of ['connection', 'module', 'webhook', 'rpc']) {
    for (const component of Object.values(app.components[type])) {
      it(`${type} ${component.id}: every code file validates`, () => {
        for (const path of Object.values(component.meta.codeFiles)) {
          const { schema, errors } = schemas.validateFile(APP_DIR, path);
          assert.deepEqual(errors, [], `${path} (${schema})`);
        }
      });
    }
  }

  describe('a deliberately broken copy fails, on the broken file only', () => {
    const cases = [
      ['a POST without a body', 'modules/create-contact/create-contact.communication.iml.json', (c) => ({ ...c, body: undefined })],
      ['a trigger directive without its order', 'modules/watch-deal-won/watch-deal-won.communication.iml.json', (c) => {
        delete c.response.trigger.order;
        return c;
      }],
      ['an unknown HTTP method', 'webhooks/deal-won-hook/deal-won-hook.detach.iml.json', (c) => ({ ...c, method: 'REMOVE' })],
      ['an epoch without a label', 'modules/watch-contact-created/watch-contact-created.epoch.iml.json', (c) => {
        delete c.response.output.label;
        return c;
      }],
      ['a parameter type Make does not have', 'modules/create-deal/create-deal.mappable-params.iml.json', (p) => p.map((f) => (f.name === 'value' ? { ...f, type: 'float' } : f))],
      ['a module type Make does not have', 'makecomapp.json', (m) => {
        m.components.module.getDeal.moduleType = 'lookup';
        return m;
      }],
    ];
    for (const [what, path, edit] of cases) {
      it(`${what} (${path})`, () => {
        const copy = brokenCopy(path, edit);
        try {
          const failing = validateAll(copy.dir).filter((r) => r.errors.length > 0);
          assert.deepEqual(failing.map((r) => r.path), [path]);
        } finally {
          copy.remove();
        }
      });
    }
  });

  it('holds the files scripts/generate.js writes (none edited by hand and left behind)', () => {
    execFileSync(process.execPath, [join(APP_DIR, 'scripts', 'generate.js'), '--check'], { stdio: 'pipe' });
  });
});
