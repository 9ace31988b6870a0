import { Readable } from 'node:stream';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { CompanyExports } from '../../../application/companyExport/CompanyExports.js';
import type { CompanyExportRecord } from '../../../application/ports/CompanyExportStore.js';
import type { AdminResource } from '../../../http/AdminResource.js';
import { HttpError } from '../../../http/HttpError.js';
import { loadCompany } from '../application/loadCompany.js';
import { PLATFORM_SCOPE, companiesProjection, companyOf } from '../readModels/companiesProjection.js';
import { adminCompanyExports as adminCompanyExportsOpenApi } from './companyExportsAdminOpenApi.js';
import { knownCompany, type CompanyLookup } from './knownCompany.js';

export interface AdminCompanyExportRoutesDeps extends CompanyLookup {
  /** `Idempotency-Key` on the POST: a retry answers the export the first request asked for. */
  readonly idempotency: Middleware;
  readonly exports: CompanyExports;
  /** BASE_PATH, which the `Location` and download URLs start with. */
  readonly basePath: string;
}

/** The 404 of an export that is not there: unknown, of another company, or past its 24 hours. */
export const exportNotFoundError = (): HttpError => new HttpError(404, 'Export not found', 'No export with this id exists for this company (exports are kept for 24 hours).');

/** The 409 of a download asked for before the archive is ready. */
const exportNotReadyError = (record: CompanyExportRecord): HttpError =>
  new HttpError(409, 'Export not ready', `The export is ${record.state}; download it once its state is ready.`, { extras: { state: record.state } });

/** An export as the admin API shows it. */
export const exportView = (record: CompanyExportRecord, basePath: string) => {
  const url = `${basePath}/admin/companies/${encodeURIComponent(record.companyId)}/exports/${encodeURIComponent(record.id)}`;
  return {
    id: record.id,
    companyId: record.companyId,
    state: record.state,
    progress: record.progress,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    expiresAt: record.expiresAt,
    download: record.state === 'ready' ? { url: `${url}/download`, size: record.size, expiresAt: record.expiresAt } : null,
  };
};

/** A company's exports: ask for one, follow it, download it. */
export const adminCompanyExportRoutes = (deps: AdminCompanyExportRoutesDeps): Router => {
  const router = new Router();
  const location = (record: CompanyExportRecord) => `${deps.basePath}/admin/companies/${encodeURIComponent(record.companyId)}/exports/${encodeURIComponent(record.id)}`;

  router.post('/admin/companies/:id/exports', deps.idempotency, async (ctx) => {
    const companyId = await knownCompany(deps, ctx.params.id!);
    const doc = await deps.companies.get(PLATFORM_SCOPE, companyId);
    // Made a moment ago by another process: its stream has its name, and not yet the read model's time.
    const company = doc ? companyOf(doc) : { id: companyId, name: (await loadCompany(deps.eventStore, companyId))?.name ?? null };
    const record = await deps.exports.start({ ...company, id: companyId });
    ctx.status = 202;
    ctx.set('Location', location(record));
    ctx.body = { success: true, data: exportView(record, deps.basePath) };
  });

  router.get('/admin/companies/:id/exports/:exportId', async (ctx) => {
    const companyId = await knownCompany(deps, ctx.params.id!);
    const record = await deps.exports.get(companyId, ctx.params.exportId!);
    if (!record) throw exportNotFoundError();
    ctx.body = { success: true, data: exportView(record, deps.basePath) };
  });

  router.get('/admin/companies/:id/exports/:exportId/download', async (ctx) => {
    const companyId = await knownCompany(deps, ctx.params.id!);
    const record = await deps.exports.get(companyId, ctx.params.exportId!);
    if (!record) throw exportNotFoundError();
    if (record.state !== 'ready') throw exportNotReadyError(record);
    const download = await deps.exports.download(companyId, record.id);
    if (!download) throw exportNotFoundError();
    ctx.set('Content-Disposition', `attachment; filename="company-${companyId}-export-${record.id}.tar"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'application/x-tar';
    if (record.size !== null) ctx.length = record.size;
    ctx.body = Readable.from(download.chunks, { objectMode: false });
  });

  return router;
};

/** `/admin/companies/{id}/exports`: a company's data and history in one archive. */
export const adminCompanyExportsResource: AdminResource = {
  openapi: adminCompanyExportsOpenApi,
  routes: (admin) => [
    adminCompanyExportRoutes({
      companies: admin.readModels.collection(companiesProjection),
      eventStore: admin.commands.eventStore,
      exports: admin.exports,
      basePath: admin.console.basePath,
      idempotency: admin.idempotency('POST /admin/companies/:id/exports'),
    }),
  ],
};
