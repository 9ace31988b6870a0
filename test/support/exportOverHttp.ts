import { expect } from 'chai';

/** Asks for an export of the company, follows it until ready, and downloads it (over HTTP, with the admin token). */
export const exportOverHttp = async (baseUrl: string, token: string, companyId: string): Promise<{ readonly archive: Buffer; readonly location: string }> => {
  const call = async (method: string, path: string) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
    return { status: response.status, location: response.headers.get('location'), body: (await response.json()) as { data: { state: string; download: { url: string } | null } } };
  };
  const asked = await call('POST', `/admin/companies/${companyId}/exports`);
  expect(asked.status, JSON.stringify(asked.body)).to.equal(202);
  const location = asked.location!;
  let state = asked.body.data;
  while (state.state === 'pending' || state.state === 'running') state = (await call('GET', location)).body.data;
  expect(state.state).to.equal('ready');
  const download = await fetch(`${baseUrl}${state.download!.url}`, { headers: { Authorization: `Bearer ${token}` } });
  expect(download.status).to.equal(200);
  return { archive: Buffer.from(await download.arrayBuffer()), location };
};
