import { expect } from 'chai';
import type { ApiResponse } from './httpHarness.js';

/** An admin request of the harness (`api.request` with an admin token). */
export type AdminRequest = (method: string, path: string, body?: unknown) => Promise<ApiResponse>;

/**
 * Asks for an export of the company over HTTP, follows it until it is ready (its
 * state only: no clock is looked at), and downloads its archive with the admin token.
 */
export const exportOverHttp = async (
  admin: AdminRequest,
  baseUrl: string,
  token: string,
  companyId: string,
): Promise<{ readonly archive: Buffer; readonly ready: any; readonly location: string }> => {
  const asked = await admin('POST', `/admin/companies/${companyId}/exports`, {});
  expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
  const location = asked.headers.get('location')!;
  expect(location).to.equal(`/admin/companies/${companyId}/exports/${asked.body.data.id}`);
  let ready = asked.body.data;
  while (ready.state === 'pending' || ready.state === 'running') {
    await new Promise((resolve) => setImmediate(resolve));
    ready = (await admin('GET', location)).body.data;
  }
  expect(ready.state).to.equal('ready');
  const response = await fetch(`${baseUrl}${ready.download.url}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(response.status).to.equal(200);
  expect(response.headers.get('content-type')).to.equal('application/x-tar');
  const archive = Buffer.from(await response.arrayBuffer());
  expect(archive.length).to.equal(ready.download.size);
  return { archive, ready, location };
};
