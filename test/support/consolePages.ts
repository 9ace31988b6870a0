import { startHarness, type ApiResponse, type Harness } from './httpHarness.js';
import { consoleGet, consolePost, csrfOf, sessionCookieOf, type ConsoleResponse } from './consoleClient.js';
import { freezeTime } from './frozenTime.js';
import { startSignedReceiver } from './signedReceiver.js';

/** When the rendering starts: the clock stands still there, and moves a minute at each step of the story below. */
export const CONSOLE_PAGES_START = new Date('2026-03-02T09:00:00.000Z');

const STEP_MS = 60_000;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * What differs from one run to the next, each replaced by a placeholder (in
 * this order): first the ids the story made, by name (`{company-id}`,
 * `{contact-id}`, `{deal-id}`, `{subscription-id}`, `{key-id:crm-sync}`,
 * `{key-id:zapier}`); then secrets by their format: a console link's token
 * (`{link-token}`), an API key (`{api-key}`) and its hint (`{api-key-hint}`),
 * a signing secret (`{signing-secret}`), the session's CSRF token (`{csrf}`);
 * the port of the webhook receiver (`127.0.0.1:{port}`) and how long a
 * delivery took (`{n} ms`); then every other id (events) as `{uuid-1}`,
 * `{uuid-2}`, … in the order they first appear on the page. Times are not
 * replaced: the clock is fixed. The asset version (`?v=`) is not either: it is
 * a hash of the stylesheet and the script, the same for the same files.
 */
export const normalisePage = (text: string, ids: ReadonlyMap<string, string>): string => {
  let page = text;
  for (const [id, name] of ids) page = page.split(id).join(`{${name}}`);
  page = page
    .replace(new RegExp(`${UUID.source}\\.[A-Za-z0-9_-]{43}`, 'g'), '{link-token}')
    .replace(/chr_[0-9A-Za-z]{36}/g, '{api-key}')
    .replace(/chr_\.\.\.[0-9A-Za-z]{4}/g, '{api-key-hint}')
    .replace(/whsec_[A-Za-z0-9+/]{43}=/g, '{signing-secret}')
    .replace(/(name="_csrf" value=")[^"]*"/g, '$1{csrf}"')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:{port}')
    .replace(/(data-label="Duration">)\d+ ms/g, '$1{n} ms');
  const others = new Map<string, string>();
  return page.replace(UUID, (id) => {
    if (!others.has(id)) others.set(id, `{uuid-${others.size + 1}}`);
    return others.get(id)!;
  });
};

/** A page as the browser got it, and the status it must have come with. */
interface Rendered {
  readonly status: number;
  readonly response: ConsoleResponse;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const created = (response: ApiResponse, what: string): Record<string, any> => {
  if (response.status !== 201) throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.data as Record<string, any>;
};

const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';

/** The id a page links to under `/console/<path>/` (the page after a change names what it made). */
const linkedId = (page: ConsoleResponse, path: string): string => {
  const found = new RegExp(`/console/${path}/(${UUID.source})`).exec(page.text);
  if (!found) throw new Error(`no link to /console/${path}/… on the page (status ${page.status})`);
  return found[1]!;
};

/**
 * Every console page a customer sees, rendered by a whole Chronicle at a fixed
 * clock (`freezeTime`) after one story told through the public paths: the
 * platform (admin API) creates the company "Acme Analytics" and its key "CRM
 * sync" and hands out a console link; in the console, the customer signs in
 * and subscribes a receiver on 127.0.0.1 to contact.created; with the key, the
 * API creates and changes a contact (delivered to the receiver) and a deal;
 * in the console, the customer creates the key "Zapier production". Then each
 * page is fetched once (the confirmations, the refused forms and the error
 * pages too), and the sign-out comes last. Each page is normalised by
 * `normalisePage`; its status is checked.
 */
export const renderConsolePages = async (): Promise<Map<string, string>> => {
  const time = freezeTime(CONSOLE_PAGES_START);
  const step = () => time.advance(STEP_MS);
  const receiver = await startSignedReceiver();
  let api: Harness | null = null;
  try {
    // No worker threads: a thread's clock is not the frozen one.
    api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', READ_MODEL_THREAD: 'false', WEBHOOK_DELIVERY_THREAD: 'false' });
    const { baseUrl } = api;
    const pages = new Map<string, Rendered>();
    const keep = (name: string, status: number, response: ConsoleResponse) => pages.set(name, { status, response });

    step();
    const { token: adminToken } = await api.issueAdminToken();
    const admin = (path: string, body: unknown) => api!.request('POST', path, { key: adminToken, body });
    step();
    const company = created(await admin('/admin/companies', { name: 'Acme Analytics' }), 'company');
    step();
    const crmSync = created(
      await admin(`/admin/companies/${company.id}/keys`, {
        name: 'CRM sync',
        type: 'generic',
        permissions: ['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'webhooks:read', 'webhooks:write'],
      }),
      'key',
    );
    const customer = (method: string, path: string, body: unknown) => api!.request(method, path, { key: crmSync.key as string, body });
    step();
    const link = tokenOf(created(await admin(`/admin/companies/${company.id}/console-sessions`, {}), 'console link').url as string);
    keep('link', 200, await consoleGet(baseUrl, `/console/login?token=${encodeURIComponent(link)}`));

    step();
    const signedIn = await consolePost(baseUrl, '/console/login', { token: link });
    const cookie = sessionCookieOf(signedIn);
    if (signedIn.status !== 303 || cookie === null) throw new Error(`sign-in failed: ${signedIn.status}`);
    const get = (path: string) => consoleGet(baseUrl, path, cookie);
    const csrf = csrfOf(await get('/console'));
    const post = (path: string, fields: Record<string, string | readonly string[]> = {}) => consolePost(baseUrl, path, { _csrf: csrf, ...fields }, cookie);

    step();
    const subscribed = await post('/console/webhooks', { event: 'contact.created', target_url: receiver.url, tags: '' });
    keep('webhook-subscribed', 201, subscribed);
    const subscriptionId = linkedId(subscribed, 'webhooks');

    step();
    const contact = created(await customer('POST', '/contacts', { name: 'Ada Lovelace', phoneNumber: '+442079460000', email: 'ada@example.com' }), 'contact');
    // Its delivery is made before the clock moves on, so that its attempt has this minute's time.
    const deadline = performance.now() + 10_000;
    while (!(await get(`/console/webhooks/${subscriptionId}`)).text.includes('class="state-delivered"')) {
      if (performance.now() > deadline) throw new Error('the contact was not delivered to the receiver');
      await sleep(20);
    }
    step();
    await customer('PUT', `/contacts/${contact.id}`, { city: 'London', position: 'Analyst' });
    step();
    const deal = created(await customer('POST', '/deals', { title: 'Analytical Engine', value: 5000, stage: 'Lead', contactId: contact.id }), 'deal');
    step();
    await customer('PUT', `/deals/${deal.id}/status`, { status: 'won' });

    step();
    const keyCreated = await post('/console/keys', { name: 'Zapier production', type: 'zapier', permissions: ['contacts:read', 'webhooks:read', 'webhooks:write'], expiresAt: '' });
    keep('key-created', 201, keyCreated);
    const zapierId = /<dt>Id<\/dt><dd><code>([^<]+)<\/code>/.exec(keyCreated.text)?.[1];
    if (zapierId === undefined) throw new Error(`the key was not created: ${keyCreated.status}`);

    step();
    await api.chronicle.usage.flush();
    keep('overview', 200, await get('/console'));
    keep('keys', 200, await get('/console/keys'));
    keep('keys-form-problems', 422, await post('/console/keys', { name: '', type: 'generic', expiresAt: 'tomorrow' }));
    keep('key-revoke-confirm', 200, await post(`/console/keys/${crmSync.id}/revoke`));
    keep('webhooks', 200, await get('/console/webhooks'));
    keep('webhooks-form-problems', 422, await post('/console/webhooks', { event: 'contact.created', target_url: 'not a url', tags: '' }));
    keep('webhook-deliveries', 200, await get(`/console/webhooks/${subscriptionId}`));
    keep('webhook-unsubscribe-confirm', 200, await post(`/console/webhooks/${subscriptionId}/unsubscribe`));
    keep('activity', 200, await get('/console/activity'));
    keep('activity-of-a-type', 200, await get('/console/activity?type=deal.created'));
    keep('contact-history', 200, await get(`/console/contacts/${contact.id}`));
    keep('contact-as-of', 200, await get(`/console/contacts/${contact.id}?asOf=2026-03-02T09:07:30`));
    keep('deal-history', 200, await get(`/console/deals/${deal.id}`));
    keep('search', 200, await get('/console/search'));
    keep('search-results', 200, await get('/console/search?q=ada'));
    keep('search-no-match', 200, await get('/console/search?q=babbage'));
    keep('search-too-long', 422, await get(`/console/search?q=${'x'.repeat(201)}`));
    const another = tokenOf(created(await admin(`/admin/companies/${company.id}/console-sessions`, {}), 'console link').url as string);
    keep('link-signed-in', 200, await consoleGet(baseUrl, `/console/login?token=${encodeURIComponent(another)}`, cookie));

    keep('error-signed-out', 401, await consoleGet(baseUrl, '/console'));
    keep('error-change-refused', 403, await consolePost(baseUrl, '/console/keys', { name: 'Probe', type: 'generic' }, cookie));
    keep('error-not-yours', 404, await get('/console/contacts/00000000-0000-7000-8000-000000000000'));
    keep('error-as-of-missing', 422, await get(`/console/contacts/${contact.id}?asOf=yesterday`));
    keep('error-link-not-valid', 404, await consoleGet(baseUrl, '/console/login?token=nonsense'));
    keep('error-link-used', 410, await consoleGet(baseUrl, `/console/login?token=${encodeURIComponent(link)}`));
    keep('error-no-such-asset', 404, await consoleGet(baseUrl, '/console/assets/missing.css'));

    const signedOut = await post('/console/logout');
    keep('signed-out', 200, await consoleGet(baseUrl, signedOut.headers.get('location') ?? '/console/signed-out'));

    const ids = new Map<string, string>([
      [company.id as string, 'company-id'],
      [crmSync.id as string, 'key-id:crm-sync'],
      [zapierId, 'key-id:zapier'],
      [contact.id as string, 'contact-id'],
      [deal.id as string, 'deal-id'],
      [subscriptionId, 'subscription-id'],
    ]);
    const rendered = new Map<string, string>();
    for (const [name, { status, response }] of [...pages].sort(([a], [b]) => a.localeCompare(b))) {
      if (response.status !== status) throw new Error(`console page ${name}: status ${response.status}, not ${status}`);
      rendered.set(name, normalisePage(response.text, ids));
    }
    return rendered;
  } finally {
    await api?.close();
    await receiver.close();
    time.restore();
  }
};
