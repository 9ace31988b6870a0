/**
 * Where a person's data is stored, declared by the feature that stores it: for
 * each stored event type and each read model, every free-text field is either
 * personal, of one subject, or not personal. A test holds each declaration to
 * the codecs and documents (a field declared neither fails it), and erasure reads
 * them to know what to make unreadable.
 */

/**
 * Whose data it is: a contact of a company, a user (a company's employee), or the
 * company itself (what the platform writes about its customer, such as why it
 * was suspended; its id is the company's id, its key `company:<id>`).
 */
export type SubjectKind = 'contact' | 'user' | 'company';

/** Fields of one subject, whose id is at `idAt` in the same event data or document. */
export interface PersonalFields {
  readonly subject: SubjectKind;
  /** Dotted path of the subject's id (`contactId`, `deal.contact.id`). */
  readonly idAt: string;
  /** Dotted paths, `[]` for an array's items (`tags[]`). */
  readonly fields: readonly string[];
}

/** Every free-text field of one shape (an event's data, a read model's document). */
export interface FieldsDeclaration {
  readonly personal: readonly PersonalFields[];
  readonly notPersonal: readonly string[];
}

/** A store's fields (dotted paths, `[]` for an array's items), and how an erasure reaches the personal ones. */
export interface StoreDeclaration {
  readonly personal: readonly string[];
  readonly notPersonal: readonly string[];
  /** The port operation that erases a person's copies (`WebhookOutbox.eraseMentions`). */
  readonly erasedBy: string;
}

/** Fields an older version of an event held and a later one dropped, and the version without them. */
export interface RetiredFields {
  readonly fields: readonly string[];
  readonly version: number;
}

/** What a feature stores of people. */
export interface PersonalDataDeclaration {
  /** By stored event type: the fields of its data in the current version. */
  readonly events: Readonly<Record<string, FieldsDeclaration>>;
  /** By read model (its projection's name): the fields of its documents. */
  readonly readModels?: Readonly<Record<string, FieldsDeclaration>>;
  /**
   * By stored event type: fields an older version held that the current one does
   * not (a value moved out of the event), taken out of stored events when they are
   * sealed in place, which then are of `version`.
   */
  readonly retired?: Readonly<Record<string, RetiredFields>>;
  /**
   * By store outside the log and the read models that keeps copies of people's data (the
   * webhook outbox): its personal fields, whose subject is whoever the record they copy is
   * about, its other fields, and the operation through which an erasure reaches them.
   */
  readonly stores?: Readonly<Record<string, StoreDeclaration>>;
  /**
   * The prefixes of its streams whose name's last part (after the last `-`) is a
   * person's value (`phone-`: a number's reservation stream); the log stores them
   * with that part as a keyed hash (`PersonalStreamNames`).
   */
  readonly streams?: readonly string[];
}

/** The fields every read-model document has besides its own (`ReadModelDocument`), none personal. */
export const DOCUMENT_FIELDS: readonly string[] = ['id', 'companyId', 'position'];

/** `declaration` with every path under `prefix`, and `notPersonal` added as they are. */
export const nestedUnder = (prefix: string, declaration: FieldsDeclaration, notPersonal: readonly string[] = []): FieldsDeclaration => ({
  personal: declaration.personal.map((group) => ({ ...group, idAt: `${prefix}.${group.idAt}`, fields: under(prefix, group.fields) })),
  notPersonal: [...notPersonal, ...under(prefix, declaration.notPersonal)],
});

/** `fields` of one `subject`, its id at `idAt`. */
export const personalOf = (subject: SubjectKind, idAt: string, fields: readonly string[]): PersonalFields => ({ subject, idAt, fields });

/** A shape without personal fields. */
export const nothingPersonal = (...notPersonal: string[]): FieldsDeclaration => ({ personal: [], notPersonal });

/** Every field a declaration names, personal or not. */
export const declaredFields = (declaration: FieldsDeclaration): string[] => [
  ...declaration.personal.flatMap((group) => group.fields),
  ...declaration.notPersonal,
];

/** Prefixes each path with `prefix.` (`contact.` + `name`). */
export const under = (prefix: string, paths: readonly string[]): string[] => paths.map((path) => `${prefix}.${path}`);

/**
 * The names of a person's fields inside any object that carries their id as `id`
 * (a Contact, a deal's `contact` or `assignedTo`), by kind, gathered from every
 * group of `declarations` whose id is such an `id` (`id`, `contact.id`): what an
 * erasure nulls in a body kept whole (a delivery's, an idempotent replay's) where
 * it finds an object with the erased person's id. Array items count as their array
 * (`tags[]`: `tags`).
 */
export const personFieldNames = (declarations: readonly FieldsDeclaration[]): ReadonlyMap<SubjectKind, ReadonlySet<string>> => {
  const names = new Map<SubjectKind, Set<string>>();
  for (const group of declarations.flatMap((declaration) => declaration.personal)) {
    const parts = group.idAt.split('.');
    if (parts[parts.length - 1] !== 'id') continue;
    const prefix = parts.slice(0, -1).join('.');
    for (const field of group.fields) {
      const relative = prefix === '' ? field : field.startsWith(`${prefix}.`) ? field.slice(prefix.length + 1) : null;
      if (relative === null || relative.includes('.')) continue;
      const known = names.get(group.subject) ?? new Set<string>();
      known.add(relative.replace(/\[\]$/, ''));
      names.set(group.subject, known);
    }
  }
  return names;
};
