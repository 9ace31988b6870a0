import type { AnyAggregate } from '../application/aggregates/AggregateDescriptor.js';
import type { Projection, ReadModelDocument } from '../application/ports/ReadModelStore.js';
import type { ReadModelCheck } from '../application/verify/ReadModelCheck.js';
import type { ConsolePages } from '../console/consoleRoutes.js';
import type { AdminResource } from '../http/AdminResource.js';
import type { ApiResource } from '../http/ApiResource.js';
import type { PersonalDataDeclaration } from '../shared/PersonalData.js';
import type { SubjectEraserOf } from '../application/personalData/reapplyErasures.js';
import type { WebhookEventSource } from './webhookEvents/WebhookEventSource.js';
import type { ExportedRecords, SecretEventFields } from '../application/companyExport/ExportedRecords.js';

/** A read model as the registry holds it: its projection, and how `chronicle verify` checks it (when it mirrors streams). */
export interface RegisteredReadModel {
  readonly projection: Projection<ReadModelDocument>;
  readonly check?: ReadModelCheck;
}

/**
 * One feature's whole public face: the aggregates whose streams it writes, the
 * read models it keeps, the customer API's resources it serves, the admin
 * API's (`/admin`, for the platform), and its pages of the customer console. The registry (index.ts) lists every
 * feature; adding one is adding it there.
 */
export interface Feature {
  readonly name: string;
  readonly aggregates?: readonly AnyAggregate[];
  readonly readModels?: readonly RegisteredReadModel[];
  readonly resources?: readonly ApiResource[];
  readonly adminResources?: readonly AdminResource[];
  /** Its pages of the customer console. */
  readonly consolePages?: readonly ConsolePages[];
  /** The webhook events its records make, when webhooks carry them (gathered into the catalogue the webhook features are built with). */
  readonly webhookEvents?: WebhookEventSource;
  /**
   * Which fields of its stored events hold a person's data, and whose: every
   * stored event type of its aggregates is declared, each free-text field personal or not.
   */
  readonly personalData?: PersonalDataDeclaration;
  /** How its subjects are erased again after a restore (`reapplyErasures`), one per kind of subject it erases. */
  readonly subjectErasers?: readonly SubjectEraserOf[];
  /** Its read models that a customer calls their data, each one part of a company's export (`records/<part>.ndjson`). */
  readonly exports?: readonly ExportedRecords[];
  /** The fields of its stored events that hold a secret (a hash of a key or token): an export leaves them out. */
  readonly secretEventFields?: SecretEventFields;
}

/** A projection of any document type, as the registry holds it. */
export const readModel = <D extends ReadModelDocument>(projection: Projection<D>, check?: ReadModelCheck): RegisteredReadModel => ({
  projection: projection as unknown as Projection<ReadModelDocument>,
  ...(check ? { check } : {}),
});
