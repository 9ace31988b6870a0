import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';

/** A small read model used by the contract suites: every filter and target kind. */
export interface TaskDoc extends ReadModelDocument {
  readonly title: string;
  readonly status: string;
  readonly points: number;
  readonly tags: readonly string[];
  readonly owner: { readonly id: string; readonly name: string } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface TaskCreatedData {
  id: string;
  title: string;
  status: string;
  points: number;
  tags: string[];
  owner: { id: string; name: string } | null;
  at: string;
}

const companyOf = (event: RecordedEvent): string => event.metadata.companyId ?? '';

export const taskProjection: Projection<TaskDoc> = {
  name: 'test_tasks',
  eventTypes: new Set(['TaskCreated', 'TaskRenamed', 'TaskMoved', 'TaskDeleted', 'OwnerRenamed']),
  indexes: [['status'], ['createdAt']],
  // Totals an adapter may keep: by status, and by status and owner (null when none).
  totals: [['status'], ['status', 'owner.id']],
  // Searches of `title` alone use a full-text index where an adapter keeps one; of other fields, a scan.
  search: ['title'],
  targets(event) {
    const data = event.data as Record<string, string>;
    if (event.type === 'OwnerRenamed') {
      return [{ kind: 'where', companyId: companyOf(event), field: 'owner.id', value: String(data.ownerId) }];
    }
    return [{ kind: 'id', companyId: companyOf(event), id: String(data.id) }];
  },
  evolve(doc, event) {
    switch (event.type) {
      case 'TaskCreated': {
        if (doc) return doc;
        const d = event.data as TaskCreatedData;
        return {
          id: d.id,
          companyId: companyOf(event),
          position: event.position,
          title: d.title,
          status: d.status,
          points: d.points,
          tags: d.tags,
          owner: d.owner,
          createdAt: d.at,
          updatedAt: d.at,
        };
      }
      case 'TaskRenamed': {
        if (!doc) return null;
        const d = event.data as { title: string; at: string };
        return { ...doc, title: d.title, updatedAt: d.at, position: event.position };
      }
      case 'TaskMoved': {
        if (!doc) return null;
        const d = event.data as { status: string; owner: { id: string; name: string } | null; at: string };
        return { ...doc, status: d.status, owner: d.owner, updatedAt: d.at, position: event.position };
      }
      case 'TaskDeleted':
        return null;
      case 'OwnerRenamed': {
        if (!doc || !doc.owner) return doc;
        const d = event.data as { name: string };
        return { ...doc, owner: { ...doc.owner, name: d.name }, position: event.position };
      }
      default:
        return doc;
    }
  },
};
