import { expect } from 'chai';
import { FEATURES, PROJECTIONS } from '../../src/features/index.js';
import { declaredFields, type FieldsDeclaration } from '../../src/shared/PersonalData.js';
import { loadGoldenLog, startOnGoldenLog, type GoldenServer } from '../support/goldenLog.js';

/** The free-text fields of a JSON value: dotted paths, `[]` for an array's items. */
const textFieldsIn = (value: unknown, at = '', found = new Set<string>()): Set<string> => {
  if (typeof value === 'string') found.add(at);
  else if (Array.isArray(value)) for (const item of value) textFieldsIn(item, `${at}[]`, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [field, item] of Object.entries(value)) textFieldsIn(item, at === '' ? field : `${at}.${field}`, found);
  }
  return found;
};

/**
 * Read models have no codecs to list their fields from: their documents are built
 * here from the newest golden log (a release's every event type, written through its
 * API) and a delete and restore of a contact and of a deal, and every free-text
 * field of every document must be declared, personal or not, by the feature that
 * keeps the read model.
 */
describe('personal data: declared for every read model', function () {
  this.timeout(60_000);
  const log = loadGoldenLog('bf089fc');
  const declarations = new Map<string, FieldsDeclaration>();
  for (const feature of FEATURES) for (const [name, declaration] of Object.entries(feature.personalData?.readModels ?? {})) declarations.set(name, declaration);
  let server: GoldenServer;

  before(async () => {
    server = await startOnGoldenLog(log);
    const baseUrl = `http://127.0.0.1:${server.chronicle.port}`;
    const send = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${log.credentials.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, `${method} ${path}`).to.be.lessThan(300);
      return (await response.json()) as { data: { id: string } };
    };
    const contact = await send('POST', '/contacts', { name: 'Declared Person', phoneNumber: '+15555550199', email: 'declared@example.com' });
    const deal = await send('POST', '/deals', { title: 'Declared deal', value: 1, contactId: contact.data.id });
    for (const path of [`/deals/${deal.data.id}`, `/contacts/${contact.data.id}`]) {
      await send('DELETE', path);
      await send('POST', `${path}/restore`, {});
    }
  });
  after(() => server?.close());

  it('each read model is declared by a feature', () => {
    expect(PROJECTIONS.map((projection) => projection.name).filter((name) => !declarations.has(name))).to.deep.equal([]);
  });

  it('every free-text field of every document is declared personal or not', async () => {
    const undeclared: string[] = [];
    let documents = 0;
    for (const projection of PROJECTIONS) {
      const declared = new Set(declaredFields(declarations.get(projection.name) ?? { personal: [], notPersonal: [] }));
      const seen = new Set<string>();
      for await (const doc of server.chronicle.stores.readModels.collection(projection).scan()) {
        documents += 1;
        textFieldsIn(doc, '', seen);
      }
      for (const field of seen) if (!declared.has(field)) undeclared.push(`${projection.name}: ${field}`);
    }
    expect(documents).to.be.greaterThan(100);
    expect(undeclared).to.deep.equal([]);
  });

  it('a personal group\'s subject id is a declared field of the same document', () => {
    for (const [name, declaration] of declarations) {
      for (const group of declaration.personal) expect(declaration.notPersonal, `${name}: ${group.subject} id`).to.include(group.idAt);
    }
  });
});
