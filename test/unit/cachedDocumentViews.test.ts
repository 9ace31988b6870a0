import { expect } from 'chai';
import { CACHED_VIEW_MS, CachedDocumentViews } from '../../src/application/queries/CachedDocumentViews.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { DocumentCollection, DocumentView, ReadModelDocument, ReadModelStore } from '../../src/application/ports/ReadModelStore.js';

/** A store of one collection whose documents are a map by company and id; it counts the views it reads. */
const fakeStore = () => {
  const docs = new Map<string, string>();
  const reads = { count: 0 };
  let gate: Promise<void> | null = null;
  const collection = {
    projection: { name: 'contacts' },
    getView: async (companyId: string, id: string): Promise<DocumentView<ReadModelDocument> | null> => {
      reads.count += 1;
      const json = docs.get(`${companyId}/${id}`);
      if (gate) await gate;
      return json === undefined ? null : ({ doc: { id } as unknown as ReadModelDocument, json } as DocumentView<ReadModelDocument>);
    },
  } as unknown as DocumentCollection<ReadModelDocument>;
  const store = {
    kind: 'postgres',
    durable: true,
    collection: () => collection,
    applyBatch: async (_collections: unknown, events: readonly RecordedEvent[]) => {
      for (const event of events) docs.set(`${event.metadata.companyId}/${event.stream}`, JSON.stringify(event.data));
    },
    close: async () => undefined,
  } as unknown as ReadModelStore;
  return { store, docs, reads, hold: (until: Promise<void> | null) => (gate = until) };
};

let position = 0;
const changed = (companyId: string, id: string, data: unknown): RecordedEvent =>
  ({ id: `e${++position}`, stream: id, revision: 0, position: String(position), type: 'Changed', data, metadata: { companyId }, recordedAt: new Date().toISOString() }) as RecordedEvent;

const given = (active = true) => {
  const fake = fakeStore();
  const views = new CachedDocumentViews(fake.store, new Set(['contacts']));
  if (active) views.activate();
  const contacts = views.collection({ name: 'contacts' } as never);
  return { ...fake, views, contacts };
};

describe('CachedDocumentViews: warm GETs by id answered from memory by the process that writes the read models', () => {
  it('given a view read once, when it is read again, then it comes from memory', async () => {
    const { views, contacts, reads } = given();
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' })], 'read-models');
    expect((await contacts.getView('c1', 'a'))!.json).to.equal('{"name":"Ann"}');
    expect((await contacts.getView('c1', 'a'))!.json).to.equal('{"name":"Ann"}');
    expect(reads.count).to.equal(1);
    expect(views.counts).to.deep.equal({ hits: 1, misses: 1 });
  });

  it('given a kept view, when a batch of its company is applied, then the next read shows the change; another company keeps its views', async () => {
    const { views, contacts, reads } = given();
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' }), changed('c2', 'b', { name: 'Bob' })], 'read-models');
    await contacts.getView('c1', 'a');
    await contacts.getView('c2', 'b');
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Anna' })], 'read-models');
    expect((await contacts.getView('c1', 'a'))!.json).to.equal('{"name":"Anna"}');
    expect((await contacts.getView('c2', 'b'))!.json, 'from memory').to.equal('{"name":"Bob"}');
    expect(reads.count).to.equal(3);
  });

  it('given a read under way, when a batch of its company commits before it ends, then what it read is not kept', async () => {
    const { views, contacts, reads, hold } = given();
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' })], 'read-models');
    let open!: () => void;
    hold(new Promise<void>((resolve) => (open = resolve)));
    const reading = contacts.getView('c1', 'a');
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Anna' })], 'read-models');
    hold(null);
    open();
    expect((await reading)!.json, 'read before the commit').to.equal('{"name":"Ann"}');
    expect((await contacts.getView('c1', 'a'))!.json).to.equal('{"name":"Anna"}');
    expect(reads.count).to.equal(2);
  });

  it('given a process that does not write the read models (not active), when it reads, then nothing is kept', async () => {
    const { views, contacts, reads } = given(false);
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' })], 'read-models');
    await contacts.getView('c1', 'a');
    await contacts.getView('c1', 'a');
    expect(reads.count).to.equal(2);
  });

  it('given an id not found, when it is read again, then the store is asked again (a create may be on its way)', async () => {
    const { contacts, reads } = given();
    expect(await contacts.getView('c1', 'nobody')).to.equal(null);
    expect(await contacts.getView('c1', 'nobody')).to.equal(null);
    expect(reads.count).to.equal(2);
  });

  it('given a kept view, when a second has passed, then the store is asked again whatever happened', async function () {
    this.timeout(5_000);
    const { views, contacts, reads } = given();
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' })], 'read-models');
    await contacts.getView('c1', 'a');
    await new Promise((resolve) => setTimeout(resolve, CACHED_VIEW_MS + 50));
    await contacts.getView('c1', 'a');
    expect(reads.count).to.equal(2);
  });

  it('given an event of no company (the platform), when it is applied, then every company’s views go', async () => {
    const { views, contacts, reads } = given();
    await views.applyBatch([contacts], [changed('c1', 'a', { name: 'Ann' })], 'read-models');
    await contacts.getView('c1', 'a');
    await views.applyBatch([contacts], [{ ...changed('c1', 'x', {}), metadata: {} } as RecordedEvent], 'read-models');
    await contacts.getView('c1', 'a');
    expect(reads.count).to.equal(2);
  });
});
