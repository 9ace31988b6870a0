import { bodyErrorsOf, errorCase, headersOf, idParameter, itemEnvelope, json, jsonResponse, nullable, schemaRef, type ApiModule } from '../../../http/openapi/common.js';
import { adminCreate, adminOperation, companyNotFound } from '../../../http/openapi/admin/common.js';

const exportIdParameter = { ...idParameter('export'), name: 'exportId' };
const exportNotFound = jsonResponse(
  'No company with this id (`Company not found`), or no export with this id of the company, or one past its 24 hours (`Export not found`).',
  { oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('ExportNotFoundError')] },
  'admin',
);

/** `/admin/companies/{id}/exports`: a company's data and history in one archive. */
export const adminCompanyExports: ApiModule = {
  tags: [
    {
      name: 'Exports',
      description:
        "A company's data and history in one archive: the current state of its records and every event of its streams. " +
        'Written in the background; kept 24 hours, then deleted (and at once by any erasure in the company).',
    },
  ],
  paths: {
    '/admin/companies/{id}/exports': {
      post: adminCreate({
        operationId: 'createCompanyExport',
        tags: ['Exports'],
        summary: "Export a company's data",
        description:
          'Starts writing the archive and answers at once with the export, `pending`, and its address in `Location` (while the API ' +
          'process that takes the request writes an export of the company, it answers that one as it stands). Follow it with ' +
          '`GET` there until its state is `ready`, then download it. The archive (an uncompressed POSIX tar) holds `manifest.json` ' +
          '(the company, the time, each part\'s line count, size and SHA-256), `records/<kind>.ndjson` (each record as reads show it) ' +
          'and `events.ndjson` (every event of the company\'s streams with its id, type, stream, revision, log position and time). ' +
          'People\'s values appear as the company knows them; an erased person\'s are null. No secret: no key or token hash, no webhook secret.',
        parameters: [idParameter('company')],
        requestBody: { required: false, content: json({ type: 'object', description: 'An empty JSON object (`{}`), or no body: nothing is read from it.' }) },
        responses: {
          ...bodyErrorsOf('admin'),
          '202': jsonResponse('The export, asked for.', 'CompanyExportResponse', 'admin', {
            Location: { description: 'The export\'s address (`GET` it to follow it).', schema: { type: 'string' } },
          }),
          '404': companyNotFound,
        },
      }),
    },
    '/admin/companies/{id}/exports/{exportId}': {
      get: adminOperation({
        operationId: 'getCompanyExport',
        tags: ['Exports'],
        summary: 'Follow an export',
        description: 'Its state, its progress (events and records written so far, of how many), and once `ready` where to download it, its size and until when.',
        parameters: [idParameter('company'), exportIdParameter],
        responses: {
          '200': jsonResponse('The export.', 'CompanyExportResponse', 'admin'),
          '404': exportNotFound,
        },
      }),
    },
    '/admin/companies/{id}/exports/{exportId}/download': {
      get: adminOperation({
        operationId: 'downloadCompanyExport',
        tags: ['Exports'],
        summary: 'Download an export',
        description: 'The archive, an uncompressed POSIX (ustar) tar, streamed as it is (a proxy in front may compress it on the wire).',
        parameters: [idParameter('company'), exportIdParameter],
        responses: {
          '200': {
            description: 'The archive.',
            headers: {
              ...headersOf('admin'),
              'Content-Disposition': { description: 'An attachment named after the company and the export.', schema: { type: 'string' } },
            },
            content: { 'application/x-tar': { schema: { type: 'string', contentMediaType: 'application/x-tar' } } },
          },
          '404': exportNotFound,
          '409': jsonResponse('The export is not ready yet, or failed (`Export not ready`, with its `state`).', 'ExportNotReadyError', 'admin'),
        },
      }),
    },
  },
  schemas: {
    CompanyExport: {
      type: 'object',
      required: ['id', 'companyId', 'state', 'progress', 'createdAt', 'finishedAt', 'expiresAt', 'download'],
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'Server-assigned (a UUID).' },
        companyId: { type: 'string' },
        state: { enum: ['pending', 'running', 'ready', 'failed'], description: '`pending`: asked for; `running`: being written; `ready`: to download; `failed`: ask for another.' },
        progress: {
          type: 'object',
          required: ['events', 'eventsTotal', 'records', 'recordsTotal'],
          additionalProperties: false,
          properties: {
            events: { type: 'integer', minimum: 0, description: 'Events written so far.' },
            eventsTotal: nullable({ type: 'integer', minimum: 0, description: 'Of how many (null until counted).' }),
            records: { type: 'integer', minimum: 0, description: 'Records written so far.' },
            recordsTotal: nullable({ type: 'integer', minimum: 0, description: 'Of how many (null until counted).' }),
          },
        },
        createdAt: schemaRef('Timestamp'),
        finishedAt: nullable(schemaRef('Timestamp')),
        expiresAt: { ...schemaRef('Timestamp'), description: 'When the export and its archive are deleted (24 hours after it was asked for).' },
        download: nullable({
          type: 'object',
          required: ['url', 'size', 'expiresAt'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', description: 'Where to download the archive (with an admin token).' },
            size: { type: 'integer', minimum: 0, description: 'The archive\'s size in bytes.' },
            expiresAt: schemaRef('Timestamp'),
          },
        }),
      },
    },
    CompanyExportResponse: itemEnvelope('CompanyExport'),
    ExportNotFoundError: errorCase({ const: 'Export not found' }),
    ExportNotReadyError: errorCase(
      { const: 'Export not ready' },
      { required: ['state'], properties: { state: { enum: ['pending', 'running', 'failed'] } } },
    ),
  },
};
