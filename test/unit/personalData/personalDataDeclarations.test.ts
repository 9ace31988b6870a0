import { expect } from 'chai';
import * as t from 'io-ts';
import { FEATURES } from '../../../src/features/index.js';
import { declaredFields } from '../../../src/shared/PersonalData.js';
import { textFieldsOf } from '../../../src/shared/textFields.js';

/** The codec of an event's `data` (an event codec is `{type, data}`). */
const dataCodecOf = (eventCodec: t.Mixed): t.Mixed => {
  const props = (eventCodec as unknown as { props?: Record<string, t.Mixed> }).props;
  if (!props?.data) throw new Error(`${eventCodec.name} is not a {type, data} codec`);
  return props.data;
};

describe('personal data: declared with each feature, for every stored event type', () => {
  const declaring = FEATURES.filter((feature) => (feature.aggregates ?? []).length > 0);

  it('every feature that stores events declares its personal data', () => {
    expect(declaring.filter((feature) => !feature.personalData).map((feature) => feature.name)).to.deep.equal([]);
  });

  for (const feature of declaring) {
    describe(feature.name, () => {
      const declared = feature.personalData?.events ?? {};
      const types = (feature.aggregates ?? []).flatMap((aggregate) => aggregate.storedEvents);

      it('declares exactly its stored event types', () => {
        expect(Object.keys(declared).sort()).to.deep.equal(types.map((type) => type.type).sort());
      });

      for (const stored of types) {
        it(`${stored.type}: every free-text field of the current version is declared personal or not, once, and nothing else`, () => {
          const declaration = declared[stored.type];
          if (!declaration) return expect.fail(`${stored.type} is not declared in ${feature.name}'s personalData`);
          const fields = [...textFieldsOf(dataCodecOf(stored.versions[stored.versions.length - 1]!))].sort();
          const named = declaredFields(declaration);
          expect(named.length, 'a field declared twice').to.equal(new Set(named).size);
          const undeclared = fields.filter((field) => !named.includes(field));
          const unknown = named.filter((field) => !fields.includes(field));
          expect({ undeclared, unknown }).to.deep.equal({ undeclared: [], unknown: [] });
          // Each group's subject id is a field of the same data, and not personal.
          for (const group of declaration.personal) expect(declaration.notPersonal, `${group.subject} id`).to.include(group.idAt);
        });
      }
    });
  }
});

describe('personal data: every searched field of a read model is declared', () => {
  // Each engine copies a projection's searched fields into a text index of its own (SQLite's
  // full-text table, PostgreSQL's trigram columns, MongoDB's search keys): a copy of a
  // personal field there is reached by erasure only through the document it is written with.
  const searched = FEATURES.flatMap((feature) =>
    (feature.readModels ?? []).filter(({ projection }) => (projection.search ?? []).length > 0).map(({ projection }) => ({ feature, projection })),
  );

  it('finds the read models that search text (contacts, deals)', () => {
    expect(searched.map(({ projection }) => projection.name)).to.include.members(['contacts', 'deals']);
  });

  for (const { feature, projection } of searched) {
    it(`${projection.name}: each searched field declared personal or not, a personal one with its subject's id in the same document`, () => {
      const declaration = feature.personalData?.readModels?.[projection.name];
      if (!declaration) return expect.fail(`${projection.name} searches text and is not declared in ${feature.name}'s personalData`);
      const named = declaredFields(declaration);
      expect((projection.search ?? []).filter((field) => !named.includes(field)), 'undeclared searched fields').to.deep.equal([]);
      for (const field of projection.search ?? []) {
        const group = declaration.personal.find((candidate) => candidate.fields.includes(field));
        if (group) expect(declaration.notPersonal, `${field}: its ${group.subject}'s id`).to.include(group.idAt);
      }
    });
  }

  it('declares the deals’ searched contact fields as the contact’s', () => {
    const deals = FEATURES.find((feature) => feature.name === 'deals')!.personalData!.readModels!.deals!;
    const contact = deals.personal.find((group) => group.subject === 'contact')!;
    expect(contact.idAt).to.equal('deal.contact.id');
    expect(contact.fields).to.include.members(['deal.contact.name', 'deal.contact.email', 'deal.contact.phoneNumber']);
    expect(deals.notPersonal).to.include('deal.title');
  });
});

describe('textFieldsOf: the free-text fields a codec describes', () => {
  it('lists nested, optional, nullable, array and record fields; skips literals, enumerations, numbers and booleans', () => {
    const codec = t.intersection([
      t.type({
        id: t.string,
        kind: t.literal('x'),
        level: t.keyof({ low: null, high: null }),
        count: t.number,
        on: t.boolean,
        person: t.type({ name: t.union([t.string, t.null]), tags: t.array(t.string) }),
        notes: t.record(t.string, t.string),
      }),
      t.partial({ email: t.string }),
    ]);
    expect([...textFieldsOf(codec)].sort()).to.deep.equal(['email', 'id', 'notes{}', 'person.name', 'person.tags[]']);
  });

  it('refuses a codec it cannot read, rather than missing a field', () => {
    expect(() => textFieldsOf(t.unknown as unknown as t.Mixed)).to.throw(/cannot list the fields/);
  });
});
