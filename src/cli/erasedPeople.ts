import type { ExportedEvent } from '../application/companyExport/CompanyExports.js';
import { subjectOf } from '../application/personalData/SubjectKeys.js';
import { PERSONAL_EVENT_FIELDS } from '../features/index.js';

const withoutItems = (path: string): string => path.replace(/\[\]/g, '');

const valueAt = (data: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), data);

/**
 * The people an exported event says were erased: each declared group of its type
 * (`PERSONAL_EVENT_FIELDS`) one of whose fields is in the event's `erasedFields`,
 * as its subject (`contact:<id>`, by the id at the group's `idAt`) and the path of
 * one of its text fields (not a list's), where the import seals a stand-in value
 * under the subject's key before destroying it, so the event reads as erased.
 */
export const erasedPeopleOf = (event: ExportedEvent): { subject: string; path: string }[] => {
  const erased = new Set((event.erasedFields ?? []).map(withoutItems));
  const declaration = PERSONAL_EVENT_FIELDS.get(event.type);
  if (!declaration || erased.size === 0) return [];
  return declaration.personal.flatMap((group) => {
    const path = group.fields.find((field) => !field.includes('[]') && erased.has(field));
    const id = valueAt(event.data, group.idAt);
    return path !== undefined && typeof id === 'string' ? [{ subject: subjectOf(group.subject, id), path }] : [];
  });
};
