import { expect } from 'chai';
import * as t from 'io-ts';
import { AGGREGATES, STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { committedEventSchemas, currentEventSchemas, EVENT_SCHEMAS_FILE, UPDATE_EVENT_SCHEMAS, type EventSchemas } from '../../support/eventSchemas.js';

/** What to do when a stored event's schema changed: the message CI shows. */
const HOW_TO_CHANGE_AN_EVENT =
  'A stored event is never rewritten, so a released version\'s schema must never change. To change an event\'s shape: ' +
  '(1) keep the old codec as it was, as <Type>V<n> in src/features/<feature>/domain/<name>EventVersions.ts; ' +
  '(2) add the new codec as version n+1, with a pure upcaster from version n, in the aggregate\'s descriptor (src/features/<feature>/application/<name>Aggregate.ts); ' +
  '(3) add the golden log of the release before your change (test/fixtures/logs/README.md); ' +
  `(4) then, and only then, run \`${UPDATE_EVENT_SCHEMAS}\` and commit ${EVENT_SCHEMAS_FILE.replace(/^.*\/test\//, 'test/')}. ` +
  'See docs/contributors/changing-an-event.md. A new event type (version 1) needs step (4) only.';

/** Every way the code's schemas differ from the committed snapshot, one line each. */
const schemaChanges = (committed: EventSchemas, current: EventSchemas): string[] => {
  const changes: string[] = [];
  for (const [type, versions] of Object.entries(committed)) {
    const now = current[type];
    if (!now) {
      changes.push(`${type}: no longer declared, but stored events of it exist; keep every version of it`);
      continue;
    }
    for (const [version, schema] of Object.entries(versions)) {
      if (now[version] === undefined) changes.push(`${type} v${version}: removed; a version that was stored can never be dropped`);
      else if (now[version] !== schema) {
        changes.push(`${type} v${version}: its schema changed without a new version\n      was: ${schema}\n      now: ${now[version]}`);
      }
    }
  }
  for (const [type, versions] of Object.entries(current)) {
    for (const version of Object.keys(versions)) {
      if (committed[type]?.[version] === undefined) changes.push(`${type} v${version}: new, not in the committed snapshot`);
    }
  }
  return changes;
};

describe('Stored event schemas', () => {
  it('are the committed snapshot: a changed codec needs a new version, an upcaster and a golden log', () => {
    const changes = schemaChanges(committedEventSchemas(), currentEventSchemas());
    expect(changes, `Stored event schemas differ from the snapshot:\n  ${changes.join('\n  ')}\n\n${HOW_TO_CHANGE_AN_EVENT}\n`).to.deep.equal([]);
  });

  it('names what changed and what to do', () => {
    const committed = { ContactUpdated: { '1': 'a', '2': 'b' }, Gone: { '1': 'x' } };
    const current = { ContactUpdated: { '1': 'a', '2': 'b2', '3': 'c' } };
    expect(schemaChanges(committed, current)).to.deep.equal([
      'ContactUpdated v2: its schema changed without a new version\n      was: b\n      now: b2',
      'Gone: no longer declared, but stored events of it exist; keep every version of it',
      'ContactUpdated v3: new, not in the committed snapshot',
    ]);
    expect(HOW_TO_CHANGE_AN_EVENT).to.match(/new version|version n\+1/).and.match(/upcaster/).and.match(/golden log/).and.match(/npm run event-schemas:update/);
  });

  it('declare every event type of every aggregate, its current version being the codec the aggregate writes with', () => {
    for (const aggregate of AGGREGATES) {
      const codec: t.Mixed = aggregate.eventCodec;
      const written = codec instanceof t.UnionType ? (codec.types as t.Mixed[]) : [codec];
      const byType = new Map(written.map((member) => [(member as t.InterfaceType<{ type: t.LiteralC<string> }>).props.type.value, member]));
      expect(aggregate.storedEvents.map((type) => type.type).sort(), `${aggregate.name}: declared types`).to.deep.equal([...byType.keys()].sort());
      for (const [type, member] of byType) {
        const declared = STORED_EVENT_TYPES.get(type)!;
        expect(declared.versions.at(-1), `${type}: its current version is not the codec its aggregate writes with`).to.equal(member);
        expect(declared.upcasts).to.have.length(declared.versions.length - 1);
      }
    }
    expect(STORED_EVENT_TYPES.size).to.equal(AGGREGATES.reduce((count, aggregate) => count + aggregate.storedEvents.length, 0));
  });
});
