import { recordLifecycleSchemas, type TriggerRecordSchemas } from '../../webhookEvents/index.js';
import { nullable, schemaRef } from '../../../http/openapi/common.js';
import type { JsonSchema } from '../../../http/openapi/types.js';
import { deals } from './dealsOpenApi.js';

const DEAL_WON: JsonSchema = {
  type: 'object',
  description: 'The record of a `deal.won` event (the specification\'s fields).',
  required: ['id', 'title', 'value', 'currency', 'stage', 'status', 'wonAt', 'contact'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    title: { type: 'string', minLength: 1, maxLength: 255 },
    value: { type: 'number', minimum: 0 },
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    stage: { type: ['string', 'null'], maxLength: 100 },
    status: { const: 'won' },
    wonAt: { ...schemaRef('Timestamp'), description: 'When the deal was won: its `actualCloseDate`.' },
    contact: {
      ...nullable({
        type: 'object',
        required: ['id', 'name', 'email'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: ['string', 'null'] }, email: { type: ['string', 'null'] } },
      }),
      description: 'The deal\'s contact when it was won; null when none. A deleted contact shows as its `id`, with `name` and `email` null.',
    },
  },
};

/**
 * A Deal as its webhook events and trigger records carry it: the Deal, but for
 * an assigned user who was erased, who keeps their `id` with `name` and `email`
 * null (the record keeps what the deal's event recorded).
 */
const DEAL_RECORD: JsonSchema = {
  ...deals.schemas.Deal!,
  description: 'A Deal as webhook events and trigger records carry it: an erased assigned user keeps their `id`, with `name` and `email` null.',
  properties: {
    ...(deals.schemas.Deal!.properties as Record<string, JsonSchema>),
    assignedTo: {
      ...nullable(schemaRef('DealUserSnapshot')),
      description: 'The assigned user when the event was recorded; null when none. An erased user shows as their `id`, with `name` and `email` null.',
    },
  },
};

/**
 * The records of the `deal.*` webhook events and triggers: `DealWon` for `deal.won`,
 * a delete's and a restore's id and time, the Deal for the others.
 */
export const dealTriggerRecords: TriggerRecordSchemas = {
  shapes: [
    { schema: 'DealWon', types: ['deal.won'], described: { trigger: 'a `DealWon` (`deal.won`)', feed: 'a DealWon (`deal.won`)' } },
    {
      schema: 'DealRecord',
      types: ['deal.created', 'deal.updated', 'deal.stage_changed', 'deal.lost'],
      described: {
        trigger: 'a Deal (`deal.created`, `deal.updated`, `deal.stage_changed`, `deal.lost`)',
        feed: 'a Deal (`deal.created`, `deal.updated`, `deal.stage_changed`, `deal.lost`)',
      },
    },
    {
      schema: 'RecordDeleted',
      types: ['deal.deleted'],
      described: { trigger: 'a `RecordDeleted` (`deal.deleted`)', feed: 'a RecordDeleted (`deal.deleted`)' },
    },
    {
      schema: 'RecordRestored',
      types: ['deal.restored'],
      described: { trigger: 'a `RecordRestored` (`deal.restored`)', feed: 'a RecordRestored (`deal.restored`)' },
    },
  ],
  shared: { DealWon: DEAL_WON, DealRecord: DEAL_RECORD, ...recordLifecycleSchemas.shared },
  records: { TriggerDeal: DEAL_RECORD, TriggerDealWon: DEAL_WON, ...recordLifecycleSchemas.records },
  alternatives: ['TriggerDealWon', 'TriggerDeal', ...recordLifecycleSchemas.alternatives],
  examples: { sample: 'deal.won' },
};
