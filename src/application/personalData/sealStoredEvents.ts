import type { EventStore, RecordedEvent, RewrittenEvent } from '../ports/EventStore.js';
import type { FieldsDeclaration, RetiredFields } from '../../shared/PersonalData.js';
import { SEALED_FIELD, sealPersonalFields, subjectsIn } from './personalSeal.js';
import type { SubjectKeys } from './SubjectKeys.js';

/** The rewrite's name in the log's record of rewrites. */
export const SEAL_STORED_EVENTS = 'personal fields sealed';

/** Events looked at per batch (one transaction each). */
const BATCH = 1000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The event as sealing stores it, or null when there is nothing to change: the
 * fields an older version held and the current one dropped (`retired`) taken out,
 * its version recorded as the one without them when it recorded one; its personal
 * values sealed under `keys` (a subject without a key, erased, keeps nothing).
 */
export const sealedInPlace = (
  event: RecordedEvent,
  declaration: FieldsDeclaration | undefined,
  retired: RetiredFields | undefined,
  keys: ReadonlyMap<string, Buffer>,
): RewrittenEvent | null => {
  if (!isObject(event.data) || SEALED_FIELD in event.data) return null;
  let data: Record<string, unknown> = event.data;
  let metadata = event.metadata;
  const dropped = (retired?.fields ?? []).filter((field) => field in data);
  if (dropped.length > 0) {
    data = Object.fromEntries(Object.entries(data).filter(([field]) => !dropped.includes(field)));
    if (metadata.schemaVersion !== undefined) metadata = { ...metadata, schemaVersion: retired!.version };
  }
  const sealed = declaration && declaration.personal.length > 0 ? sealPersonalFields(event.id, data, declaration, keys) : data;
  const sealedAny = isObject(sealed) && SEALED_FIELD in sealed;
  if (dropped.length === 0 && !sealedAny && JSON.stringify(sealed) === JSON.stringify(event.data)) return null;
  return { data: sealed, metadata };
};

/**
 * The migration of events stored before personal fields were sealed: every such
 * event of the log rewritten in place, its personal values sealed under their
 * subjects' keys (made for those who have none), a batch at a time, resumable
 * (`EventStore.rewriteEventData`: the log records how far it went). Done once; a
 * later call answers at once. `onBatch` hears of each batch.
 */
export const sealStoredEvents = async (
  log: Required<Pick<EventStore, 'rewriteEventData'>>,
  keys: SubjectKeys,
  declarations: ReadonlyMap<string, FieldsDeclaration>,
  retired: ReadonlyMap<string, RetiredFields>,
  onBatch: (progress: { readonly looked: number; readonly changed: number }) => void = () => undefined,
): Promise<{ readonly looked: number; readonly changed: number }> => {
  let looked = 0;
  let changed = 0;
  for (;;) {
    const batch = await log.rewriteEventData(SEAL_STORED_EVENTS, BATCH, async (events) => {
      const subjects = events.flatMap((event) => {
        const declaration = declarations.get(event.type);
        return declaration && isObject(event.data) && !(SEALED_FIELD in event.data) ? subjectsIn(event.data, declaration) : [];
      });
      const known = await keys.keysFor(subjects);
      const rewritten = new Map<string, RewrittenEvent>();
      for (const event of events) {
        const sealed = sealedInPlace(event, declarations.get(event.type), retired.get(event.type), known);
        if (sealed) rewritten.set(event.id, sealed);
      }
      return rewritten;
    });
    if (batch.looked === 0) return { looked, changed };
    looked += batch.looked;
    changed += batch.changed;
    onBatch({ looked, changed });
  }
};
