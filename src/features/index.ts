import type { AnyAggregate } from '../application/aggregates/AggregateDescriptor.js';
import type { Projection, ReadModelDocument } from '../application/ports/ReadModelStore.js';
import type { ReadModelCheck } from '../application/verify/ReadModelCheck.js';
import { storedEventTypesOf, type StoredEventType } from '../application/versioning/storedEventTypes.js';
import type { ConsolePages } from '../console/consoleRoutes.js';
import type { ApiResource } from '../http/ApiResource.js';
import type { AdminResource } from '../http/AdminResource.js';
import { adminApiSpec } from '../http/openapi/admin/document.js';
import { openApiDocument } from '../http/openapi/document.js';
import type { OpenApiDocument } from '../http/openapi/types.js';
import { adminTokens } from './adminTokens/index.js';
import { agents } from './agents/index.js';
import { apiKeys } from './apiKeys/index.js';
import { companies, withoutErasedCompanies } from './companies/index.js';
import { customerConsole } from './console/index.js';
import { contacts } from './contacts/index.js';
import { deals } from './deals/index.js';
import type { Feature } from './Feature.js';
import type { SubjectEraserOf } from '../application/personalData/reapplyErasures.js';
import type { ExportedRecords, SecretEventFields } from '../application/companyExport/ExportedRecords.js';
import { personFieldNames, type FieldsDeclaration, type RetiredFields, type SubjectKind } from '../shared/PersonalData.js';
import { users } from './users/index.js';
import { webhookEventCatalogue, webhookEventsFeature, type WebhookEventCatalogue } from './webhookEvents/index.js';
import { webhooksFeature } from './webhooks/index.js';

/**
 * The registry: every feature of Chronicle. Each list the rest of the code needs
 * (stored event types, read models, verify's checks, API routes, the OpenAPI
 * document) is derived from it below, so adding a feature, with its aggregates,
 * read models and resources, is one import and one entry here (docs/contributors,
 * "Adding an aggregate").
 */
const RECORD_FEATURES: readonly Feature[] = [contacts, deals, agents, users, apiKeys, companies, adminTokens, customerConsole];

/**
 * Every webhook event type and the one mapping from stored events to webhook
 * events, gathered from the features whose records webhooks carry (each declares
 * its own in `webhookEvents`); the webhook features are built with it.
 */
export const WEBHOOK_EVENTS: WebhookEventCatalogue = webhookEventCatalogue(
  RECORD_FEATURES.flatMap((feature) => (feature.webhookEvents ? [feature.webhookEvents] : [])),
);

export const FEATURES: readonly Feature[] = [
  contacts,
  deals,
  agents,
  users,
  apiKeys,
  webhooksFeature(WEBHOOK_EVENTS),
  webhookEventsFeature(WEBHOOK_EVENTS),
  companies,
  adminTokens,
  customerConsole,
];

/** Every aggregate, in the order of the features. */
export const AGGREGATES: readonly AnyAggregate[] = FEATURES.flatMap((feature) => feature.aggregates ?? []);

/** Every stored event type with every version it was stored in: what the versioning decorator reads with. */
export const STORED_EVENT_TYPES: ReadonlyMap<string, StoredEventType> = storedEventTypesOf(AGGREGATES);

/** How every kind of subject is erased again after a restore (`reapplyErasures`), from the features that erase them. */
export const SUBJECT_ERASERS: readonly SubjectEraserOf[] = FEATURES.flatMap((feature) => feature.subjectErasers ?? []);

/** The read models a customer calls their data, one part each of a company's export, in the order of the features. */
export const EXPORTED_RECORDS: readonly ExportedRecords[] = FEATURES.flatMap((feature) => feature.exports ?? []);

/** The secret fields of stored events (hashes of keys and tokens), which an export leaves out. */
export const SECRET_EVENT_FIELDS: SecretEventFields = Object.fromEntries(FEATURES.flatMap((feature) => Object.entries(feature.secretEventFields ?? {})));

/** Every read model the projector keeps, in the order of the features. */
export const PROJECTIONS: readonly Projection<ReadModelDocument>[] = FEATURES.flatMap((feature) =>
  (feature.readModels ?? []).map((readModel) => readModel.projection),
);

/** How `chronicle verify` checks each read model that mirrors streams (expecting no document of an erased company). */
export const READ_MODEL_CHECKS: readonly ReadModelCheck[] = FEATURES.flatMap((feature) =>
  (feature.readModels ?? []).flatMap((readModel) => (readModel.check ? [withoutErasedCompanies(readModel.check)] : [])),
);

/** Every page of the customer console, in the features' order (a link's page first). */
export const CONSOLE_PAGES: readonly ConsolePages[] = FEATURES.flatMap((feature) => feature.consolePages ?? []);

/** Every resource of the customer API, each with its routes and its part of the OpenAPI document. */
export const API_RESOURCES: readonly ApiResource[] = FEATURES.flatMap((feature) => feature.resources ?? []);

/** The customer API's OpenAPI document, served under `basePath`. */
export const apiDocument = (basePath: string): OpenApiDocument => openApiDocument(basePath, API_RESOURCES);

/** Every resource of the admin API (`/admin`), each with its routes and its part of the admin API's OpenAPI document. */
export const ADMIN_RESOURCES: readonly AdminResource[] = FEATURES.flatMap((feature) => feature.adminResources ?? []);

/** The admin API's OpenAPI document, served under `basePath` at `/admin/openapi.json`. */
export const adminDocument = (basePath: string): OpenApiDocument => openApiDocument(basePath, ADMIN_RESOURCES, adminApiSpec);

/** Two aggregates whose streams could be taken for each other's (one prefix starts the other) would fold each other's events. */
const refuseOverlappingStreams = (aggregates: readonly AnyAggregate[]): void => {
  for (const a of aggregates) {
    for (const b of aggregates) {
      if (a !== b && b.streamPrefix.startsWith(a.streamPrefix)) {
        throw new Error(`aggregates ${a.name} and ${b.name}: stream prefix ${b.streamPrefix} starts with ${a.streamPrefix}`);
      }
    }
  }
};
refuseOverlappingStreams(AGGREGATES);

/**
 * The names of each kind of person's fields in any object that carries their id as
 * `id` (`personFieldNames` over every declaration): what an erasure nulls in a body
 * kept whole (a delivery's, a kept response).
 */
export const PERSON_FIELDS: ReadonlyMap<SubjectKind, ReadonlySet<string>> = personFieldNames(
  FEATURES.flatMap((feature) => [...Object.values(feature.personalData?.events ?? {}), ...Object.values(feature.personalData?.readModels ?? {})]),
);

/** By stored event type: the fields older versions held and the current one dropped (taken out when stored events are sealed). */
export const RETIRED_EVENT_FIELDS: ReadonlyMap<string, RetiredFields> = new Map(
  FEATURES.flatMap((feature) => Object.entries(feature.personalData?.retired ?? {})),
);

/** The prefixes of the streams whose name ends in a person's value (`phone-`): stored with it hashed. */
export const PERSONAL_STREAM_PREFIXES: readonly string[] = FEATURES.flatMap((feature) => feature.personalData?.streams ?? []);

/** The fields of every stored event type's data, personal or not, as its feature declares them (the personal-data decorator seals by them). */
export const PERSONAL_EVENT_FIELDS: ReadonlyMap<string, FieldsDeclaration> = new Map(
  FEATURES.flatMap((feature) => Object.entries(feature.personalData?.events ?? {})),
);
