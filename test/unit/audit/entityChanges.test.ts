import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { entityChanges } from '../../../src/application/audit/entityChanges.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { ContactCommand } from '../../../src/features/contacts/domain/contactCommands.js';
import { contactDecider } from '../../../src/features/contacts/domain/contactDecider.js';
import type { ContactEvent } from '../../../src/features/contacts/domain/contactEvents.js';
import { contactOf, contactsProjection } from '../../../src/features/contacts/readModels/contactsProjection.js';

/** A contact's stream as the decider writes it: created, then changed. */
const streamOf = (commands: readonly ContactCommand[]): RecordedEvent[] => {
  let state = contactDecider.initialState;
  const events: ContactEvent[] = [];
  for (const command of commands) {
    const decided = contactDecider.decide(command, state);
    if (E.isLeft(decided)) throw new Error(JSON.stringify(decided.left));
    for (const event of decided.right) {
      events.push(event);
      state = contactDecider.evolve(state, event);
    }
  }
  return events.map((event, revision) => ({
    id: `e-${revision}`,
    stream: 'contact-c1',
    revision,
    position: String(revision + 1),
    type: event.type,
    data: event.data,
    metadata: { source: 'api', correlationId: 'r', keyId: 'k1' },
    recordedAt: `2026-03-01T10:0${revision}:00.000Z`,
  }));
};

describe('entityChanges: what each stored event changed, field by field', () => {
  it('lists the fields a creation set (not those it left unset), then each change, updatedAt left out', () => {
    const events = streamOf([
      { type: 'CreateContact', contactId: 'c1', companyId: 'co', fields: { name: 'Ada Lovelace', phoneNumber: '+15555550100', tags: [] }, at: new Date('2026-03-01T10:00:00.000Z') },
      { type: 'UpdateContact', contactId: 'c1', companyId: 'co', changes: { city: 'London', tags: ['vip'] }, at: new Date('2026-03-01T10:01:00.000Z') },
    ] as ContactCommand[]);
    const [created, updated] = entityChanges(events, contactsProjection, contactOf);
    expect(created!.changes.map((change) => change.field)).to.deep.equal(['id', 'name', 'phoneNumber', 'tags', 'createdAt']);
    expect(updated!.changes).to.deep.equal([
      { field: 'city', before: undefined, after: 'London' },
      { field: 'tags', before: [], after: ['vip'] },
    ]);
    expect(updated!.event.metadata.keyId).to.equal('k1');
  });

  it('names a deletion and the restore after it, listing no field for either, and a change after them as usual', () => {
    const at = (minute: number) => new Date(`2026-03-01T10:0${minute}:00.000Z`);
    const events = streamOf([
      { type: 'CreateContact', contactId: 'c1', companyId: 'co', fields: { name: 'Ada Lovelace', phoneNumber: '+15555550100', tags: [] }, at: at(0) },
      { type: 'DeleteContact', contactId: 'c1', companyId: 'co', at: at(1), restorableUntil: at(9) },
      { type: 'RestoreContact', contactId: 'c1', companyId: 'co', at: at(2) },
      { type: 'UpdateContact', contactId: 'c1', companyId: 'co', changes: { city: 'London' }, at: at(3) },
    ] as ContactCommand[]);
    const [created, deleted, restored, updated] = entityChanges(events, contactsProjection, contactOf);
    expect(created!.lifecycle).to.equal(undefined);
    expect(deleted).to.deep.include({ lifecycle: 'deleted', changes: [] });
    expect(deleted!.event.type).to.equal('ContactDeleted');
    expect(restored).to.deep.include({ lifecycle: 'restored', changes: [] });
    expect(restored!.event.type).to.equal('ContactRestored');
    expect(updated!.lifecycle).to.equal(undefined);
    expect(updated!.changes).to.deep.equal([{ field: 'city', before: undefined, after: 'London' }]);
  });

  it('names an erasure, of a live or a deleted record, listing no field (without the erasing types, it reads as a deletion)', () => {
    const at = (minute: number) => new Date(`2026-03-01T10:0${minute}:00.000Z`);
    const live = streamOf([
      { type: 'CreateContact', contactId: 'c1', companyId: 'co', fields: { name: 'Ada Lovelace', phoneNumber: '+15555550100', tags: [] }, at: at(0) },
      { type: 'EraseContact', contactId: 'c1', companyId: 'co', at: at(1), reason: 'requested' },
    ] as ContactCommand[]);
    const erasures = new Set(['ContactErased']);
    expect(entityChanges(live, contactsProjection, contactOf, erasures)[1]).to.deep.include({ lifecycle: 'erased', changes: [] });
    expect(entityChanges(live, contactsProjection, contactOf)[1]).to.deep.include({ lifecycle: 'deleted', changes: [] });
    const deleted = streamOf([
      { type: 'CreateContact', contactId: 'c1', companyId: 'co', fields: { name: 'Ada Lovelace', phoneNumber: '+15555550100', tags: [] }, at: at(0) },
      { type: 'DeleteContact', contactId: 'c1', companyId: 'co', at: at(1), restorableUntil: at(9) },
      { type: 'EraseContact', contactId: 'c1', companyId: 'co', at: at(2), reason: 'requested' },
    ] as ContactCommand[]);
    expect(entityChanges(deleted, contactsProjection, contactOf, erasures).map((change) => change.lifecycle)).to.deep.equal([undefined, 'deleted', 'erased']);
  });
});
