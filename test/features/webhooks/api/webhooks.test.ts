import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import { sqliteOf } from '../../../support/sqliteOf.js';
import { loadConfig } from '../../../../src/config.js';
import { createLogger } from '../../../../src/logging.js';
import { startChronicle, type Chronicle } from '../../../../src/startup/startChronicle.js';
import type { ResolveHost } from '../../../../src/webhooks/targetUrlGuard.js';
import { assertMatchesOpenApi } from '../../../support/openApi.js';
import { startHarness, type ApiResponse, type Harness } from '../../../support/httpHarness.js';
import { tempDir } from '../../../support/tempStore.js';

/**
 * Webhook subscriptions over HTTP. Target URLs here are public IP literals or
 * refused without any lookup (the harness uses the real resolver); host names go
 * through a Chronicle started with a fake resolver. Nothing is ever sent to them.
 */

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
/** A public address (never contacted: no event is ever delivered in these tests). */
const PUBLIC_TARGET = 'https://93.184.215.14/hooks/chronicle';

describe('HTTP: webhooks', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' })));
  after(() => api.close());

  const subscribe = (body: unknown, key?: string): Promise<ApiResponse> =>
    api.request('POST', '/webhooks/subscribe', { body, ...(key !== undefined ? { key } : {}) });
  const subscribed = async (event: string, target_url = PUBLIC_TARGET, key?: string): Promise<{ id: string; secret: string }> => {
    const res = await subscribe({ event, target_url }, key);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return { id: res.body.data.id, secret: res.body.data.secret };
  };
  const listIds = async (key?: string): Promise<string[]> => {
    const res = await api.request('GET', '/webhooks', key !== undefined ? { key } : {});
    expect(res.status).to.equal(200);
    return res.body.data.map((item: { id: string }) => item.id);
  };

  describe('POST /webhooks/subscribe', () => {
    it('answers 201 with the subscription and its secret, shown only there', async () => {
      const res = await subscribe({ event: 'contact.updated', target_url: 'HTTPS://93.184.215.14:8443/a/b?c=d', filters: { tags: ['vip'] } });
      expect(res.status).to.equal(201);
      expect(res.headers.get('X-Log-Position')).to.match(/^\d+$/);
      const { data } = res.body;
      expect(res.body.success).to.equal(true);
      expect(Object.keys(data)).to.deep.equal(['id', 'subscription_id', 'event', 'target_url', 'created_at', 'secret']);
      expect(data.id).to.match(UUID_V7);
      expect(data.subscription_id).to.equal(data.id);
      expect(data).to.include({ event: 'contact.updated', target_url: 'https://93.184.215.14:8443/a/b?c=d' });
      expect(data.created_at).to.match(ISO_MS);
      expect(data.secret).to.match(SECRET);
      expect(Buffer.from(data.secret.slice(6), 'base64')).to.have.length(32);

      // Kept in the secret store, for the dispatcher.
      expect(await api.chronicle.stores.webhookSecrets.get(data.id)).to.equal(data.secret);
      // Not in the list (read your writes: it is there at once).
      const list = await api.request('GET', '/webhooks');
      const item = list.body.data.find((i: { id: string }) => i.id === data.id);
      expect(item).to.deep.equal({
        id: data.id,
        subscription_id: data.id,
        event_type: 'contact.updated',
        target_url: 'https://93.184.215.14:8443/a/b?c=d',
        is_active: true,
        created_at: data.created_at,
        delivery_status: 'active',
        failing_since: null,
      });
      expect(JSON.stringify(list.body)).not.to.contain(data.secret.slice(6));
      // Not in the event log, byte for byte as stored (the secrets table of the same file holds it).
      const db = sqliteOf(api.chronicle.stores.eventStore).db;
      const rows = JSON.stringify(db.prepare('SELECT * FROM events').all());
      expect(rows).to.contain(data.id).and.contain('WebhookSubscribed');
      expect(rows).not.to.contain(data.secret.slice(6));
      expect(db.prepare('SELECT secret FROM webhook_secrets WHERE subscription_id = ?').get(data.id)).to.deep.equal({ secret: data.secret });
      // Not in the logs (which did record the request).
      expect(api.logs()).to.contain('/webhooks/subscribe');
      expect(api.logs()).not.to.contain(data.secret.slice(6));
    });

    it('records WebhookSubscribed with the caller in the metadata, and no secret', async () => {
      const { id } = await subscribed('contact.created');
      const events = await api.chronicle.stores.eventStore.readStream(`webhook-${id}`);
      expect(events).to.have.length(1);
      expect(events[0]!.type).to.equal('WebhookSubscribed');
      expect(events[0]!.data).to.deep.equal({
        subscriptionId: id,
        companyId: api.companyId,
        event: 'contact.created',
        targetUrl: PUBLIC_TARGET,
        filters: null,
        createdAt: (events[0]!.data as { createdAt: string }).createdAt,
      });
      expect(events[0]!.metadata).to.include({ source: 'api', companyId: api.companyId });
    });

    it('gives every subscription its own id and secret', async () => {
      const [a, b] = [await subscribed('deal.lost'), await subscribed('deal.lost')];
      expect(a.id).not.to.equal(b.id);
      expect(a.secret).not.to.equal(b.secret);
    });

    it('reports missing event and target_url (422 Missing required fields)', async () => {
      const res = await subscribe({ filters: { tags: ['vip'] } });
      expect(res.status).to.equal(422);
      expect(res.body).to.include({ error: 'Missing required fields' });
      expect(res.body.details).to.deep.equal({ missingFields: ['event', 'target_url'] });
    });

    it('refuses an unknown event type (details.event)', async () => {
      const res = await subscribe({ event: 'deal.archived', target_url: PUBLIC_TARGET });
      expect(res.status).to.equal(422);
      expect(res.body.error).to.equal('Validation failed');
      expect(Object.keys(res.body.details)).to.deep.equal(['event']);
      expect(res.body.details.event).to.contain('deal.stage_changed');
    });

    it('refuses a malformed or non-public target URL (details.target_url), in any spelling', async () => {
      for (const target_url of [
        'not a url',
        'ftp://93.184.215.14/x',
        'https://user:pw@93.184.215.14/x',
        'http://localhost:3000/hook',
        'http://127.0.0.1/x',
        'http://127.1/x',
        'http://0x7f.0.0.1/x',
        'http://2130706433/x',
        'http://017700000001/x',
        'http://[::1]/x',
        'http://[::ffff:127.0.0.1]/x',
        'http://[::ffff:7f00:1]/x',
        'http://[64:ff9b::7f00:1]/x',
        'http://10.0.0.8/x',
        'http://192.168.1.1/x',
        'http://100.64.0.1/x',
        'http://169.254.169.254/latest/meta-data/',
        'http://[fd00:ec2::254]/',
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://0.0.0.0/',
        'http://224.0.0.1/',
        'http://255.255.255.255/',
      ]) {
        const res = await subscribe({ event: 'contact.created', target_url });
        expect(res.status, target_url).to.equal(422);
        expect(res.body.error, target_url).to.equal('Validation failed');
        expect(Object.keys(res.body.details), target_url).to.deep.equal(['target_url']);
        expect(res.body.details.target_url, target_url).to.match(/^target_url must/);
      }
    });

    it('refuses filters other than {tags: [1 to 50 strings]} (details.filters)', async () => {
      for (const filters of [{}, { tags: [] }, { tags: 'vip' }, { tags: ['vip'], status: 'won' }, ['vip']]) {
        const res = await subscribe({ event: 'contact.created', target_url: PUBLIC_TARGET, filters });
        expect(res.status, JSON.stringify(filters)).to.equal(422);
        expect(Object.keys(res.body.details), JSON.stringify(filters)).to.deep.equal(['filters']);
      }
    });

    it('refuses tag filters on a deal event type (deals have no tags), rather than ignoring them', async () => {
      const res = await subscribe({ event: 'deal.won', target_url: PUBLIC_TARGET, filters: { tags: ['vip'] } });
      expect(res.status).to.equal(422);
      expect(res.body.details).to.deep.equal({ filters: 'tag filters apply to contact events (contact.*) only' });
      expect((await subscribe({ event: 'deal.won', target_url: PUBLIC_TARGET, filters: null })).status).to.equal(201);
    });

    it('subscribes nothing when the request is refused', async () => {
      const before = await listIds();
      await subscribe({ event: 'contact.created', target_url: 'http://127.0.0.1/' });
      await subscribe({ event: 'nope', target_url: PUBLIC_TARGET });
      expect(await listIds()).to.deep.equal(before);
    });

    it('needs webhooks:write (403)', async () => {
      const { key } = await api.issueKey(api.companyId, ['webhooks:read', 'contacts:read', 'deals:read']);
      const res = await subscribe({ event: 'contact.created', target_url: PUBLIC_TARGET }, key);
      expect(res.status).to.equal(403);
      expect(res.body).to.include({ error: 'Permission denied: webhooks:write required', requiredPermission: 'webhooks:write' });
    });

    it('needs the read permission of the event type’s resource (403 naming it)', async () => {
      const { key } = await api.issueKey(api.companyId, ['webhooks:write', 'webhooks:read', 'deals:read']);
      const refused = await subscribe({ event: 'contact.updated', target_url: PUBLIC_TARGET }, key);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ error: 'Permission denied: contacts:read required', requiredPermission: 'contacts:read' });
      expect(refused.body.availablePermissions).to.have.members(['webhooks:write', 'webhooks:read', 'deals:read']);
      const { id } = await subscribed('deal.stage_changed', PUBLIC_TARGET, key);

      const { key: contactsOnly } = await api.issueKey(api.companyId, ['webhooks:write', 'contacts:read']);
      const noDeals = await subscribe({ event: 'deal.won', target_url: PUBLIC_TARGET }, contactsOnly);
      expect(noDeals.status).to.equal(403);
      expect(noDeals.body.requiredPermission).to.equal('deals:read');
      expect(await listIds()).to.include(id);
    });
  });

  describe('GET /webhooks', () => {
    it('lists only the active subscriptions of the caller’s company, oldest first', async () => {
      const other = await api.newCompany('Webhook neighbours');
      const theirs = await subscribed('contact.created', PUBLIC_TARGET, other.key);
      const first = await subscribed('deal.created');
      const ended = await subscribed('deal.updated');
      const last = await subscribed('deal.won');
      expect((await api.request('DELETE', `/webhooks/${ended.id}`)).status).to.equal(200);

      const ours = await listIds();
      expect(ours).to.include.members([first.id, last.id]);
      expect(ours).not.to.include.members([ended.id, theirs.id]);
      expect(ours.indexOf(first.id)).to.be.lessThan(ours.indexOf(last.id));
      expect(await listIds(other.key)).to.deep.equal([theirs.id]);
    });

    it('needs webhooks:read (403)', async () => {
      const { key } = await api.issueKey(api.companyId, ['webhooks:write', 'contacts:read']);
      const res = await api.request('GET', '/webhooks', { key });
      expect(res.status).to.equal(403);
      expect(res.body.requiredPermission).to.equal('webhooks:read');
    });
  });

  describe('DELETE /webhooks/unsubscribe and DELETE /webhooks/:id', () => {
    it('unsubscribes with the id in the body: 200, no longer listed, secret deleted, WebhookUnsubscribed recorded', async () => {
      const { id } = await subscribed('contact.created');
      const res = await api.request('DELETE', '/webhooks/unsubscribe', { body: { subscription_id: id } });
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.message).to.be.a('string').and.contain(id);
      expect(res.headers.get('X-Log-Position')).to.match(/^\d+$/);
      expect(await listIds()).not.to.include(id);
      expect(await api.chronicle.stores.webhookSecrets.get(id)).to.equal(null);
      const events = await api.chronicle.stores.eventStore.readStream(`webhook-${id}`);
      expect(events.map((e) => e.type)).to.deep.equal(['WebhookSubscribed', 'WebhookUnsubscribed']);
      expect(events[1]!.data).to.deep.include({ subscriptionId: id, companyId: api.companyId, reason: 'client' });
    });

    it('unsubscribes with the id in the path (for clients that drop DELETE bodies)', async () => {
      const { id } = await subscribed('deal.lost');
      const res = await api.request('DELETE', `/webhooks/${id}`);
      expect(res.status).to.equal(200);
      expect(await listIds()).not.to.include(id);
    });

    it('answers 404 for a subscription already unsubscribed', async () => {
      const { id } = await subscribed('deal.lost');
      expect((await api.request('DELETE', `/webhooks/${id}`)).status).to.equal(200);
      for (const res of [
        await api.request('DELETE', `/webhooks/${id}`),
        await api.request('DELETE', '/webhooks/unsubscribe', { body: { subscription_id: id } }),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body.error).to.equal('Webhook subscription not found');
      }
    });

    it('answers 404 for another company’s subscription, by body and by path, and leaves it alone', async () => {
      const other = await api.newCompany('Webhook owners');
      const theirs = await subscribed('contact.created', PUBLIC_TARGET, other.key);
      for (const res of [
        await api.request('DELETE', '/webhooks/unsubscribe', { body: { subscription_id: theirs.id } }),
        await api.request('DELETE', `/webhooks/${theirs.id}`),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body.error).to.equal('Webhook subscription not found');
      }
      expect(await listIds(other.key)).to.deep.equal([theirs.id]);
      expect(await api.chronicle.stores.webhookSecrets.get(theirs.id)).to.equal(theirs.secret);
    });

    it('answers 404 for an unknown id', async () => {
      for (const id of ['0190f3a4-0000-7000-8000-000000000000', 'not-a-uuid']) {
        const byBody = await api.request('DELETE', '/webhooks/unsubscribe', { body: { subscription_id: id } });
        const byPath = await api.request('DELETE', `/webhooks/${id}`);
        expect([byBody.status, byPath.status], id).to.deep.equal([404, 404]);
      }
    });

    it('reports a missing subscription_id (422 Missing required fields), with or without a body', async () => {
      for (const options of [{ body: {} }, { body: { subscription_id: null } }, {}]) {
        const res = await api.request('DELETE', '/webhooks/unsubscribe', options);
        expect(res.status, JSON.stringify(options)).to.equal(422);
        expect(res.body.error).to.equal('Missing required fields');
        expect(res.body.details).to.deep.equal({ missingFields: ['subscription_id'] });
      }
    });

    it('needs webhooks:write (403)', async () => {
      const { id } = await subscribed('deal.won');
      const { key } = await api.issueKey(api.companyId, ['webhooks:read', 'deals:read']);
      for (const res of [
        await api.request('DELETE', '/webhooks/unsubscribe', { key, body: { subscription_id: id } }),
        await api.request('DELETE', `/webhooks/${id}`, { key }),
      ]) {
        expect(res.status).to.equal(403);
        expect(res.body.requiredPermission).to.equal('webhooks:write');
      }
      expect(await listIds()).to.include(id);
    });
  });
});

describe('HTTP: webhooks, private targets allowed (WEBHOOK_ALLOW_PRIVATE_TARGETS=true)', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })));
  after(() => api.close());

  it('accepts loopback and private targets, but still only http(s) without credentials', async () => {
    for (const target_url of ['http://127.0.0.1:9/hook', 'http://localhost:9/hook', 'http://10.0.0.8/x']) {
      const res = await api.request('POST', '/webhooks/subscribe', { body: { event: 'contact.created', target_url } });
      expect(res.status, target_url).to.equal(201);
    }
    for (const target_url of ['ftp://127.0.0.1/', 'http://user:pw@127.0.0.1/']) {
      const res = await api.request('POST', '/webhooks/subscribe', { body: { event: 'contact.created', target_url } });
      expect(res.status, target_url).to.equal(422);
    }
  });
});

describe('HTTP: webhooks, target host names through the resolver (startChronicle deps)', function () {
  this.timeout(30_000);
  const dir = tempDir('chronicle-http-webhooks-');
  const asked: string[] = [];
  const dns: Record<string, string[]> = {
    'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.5'],
    'rebind.example.com': ['::ffff:127.0.0.1'],
  };
  const resolveHost: ResolveHost = async (host) => {
    asked.push(host);
    const addresses = dns[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
  let chronicle: Chronicle;
  let baseUrl: string;
  let logs = '';

  before(async () => {
    const logStream = new PassThrough();
    logStream.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' });
    chronicle = await startChronicle(config, createLogger('debug', logStream), undefined, { resolveHost });
    baseUrl = `http://127.0.0.1:${chronicle.port}`;
  });
  after(async () => {
    await chronicle.close();
    dir.dispose();
  });

  const subscribe = async (target_url: string): Promise<{ status: number; body: any }> => {
    const response = await fetch(`${baseUrl}/webhooks/subscribe`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${chronicle.demo!.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ event: 'deal.won', target_url }),
    });
    const body = await response.json();
    assertMatchesOpenApi({ method: 'POST', path: '/webhooks/subscribe', status: response.status, body, headers: response.headers });
    return { status: response.status, body };
  };

  it('subscribes a host name whose every address is public (201), in canonical form', async () => {
    const res = await subscribe('https://Hooks.Example.com/x');
    expect(res.status).to.equal(201);
    expect(res.body.data.target_url).to.equal('https://hooks.example.com/x');
    expect(asked).to.include('hooks.example.com');
    expect(logs).not.to.contain(res.body.data.secret.slice(6));
  });

  it('refuses a host name with a public and a private address, or a loopback one (422)', async () => {
    for (const host of ['mixed.example.com', 'rebind.example.com']) {
      const res = await subscribe(`https://${host}/x`);
      expect(res.status, host).to.equal(422);
      expect(res.body.details.target_url, host).to.match(/must point to a public address/);
      expect(res.body.details.target_url, host).not.to.match(/10\.0\.0\.5|127\.0\.0\.1/);
    }
  });

  it('refuses a host name that does not resolve (422 could not resolve)', async () => {
    const res = await subscribe('https://nowhere.example.com/x');
    expect(res.status).to.equal(422);
    expect(res.body.details).to.deep.equal({ target_url: 'target_url could not resolve the host nowhere.example.com' });
  });
});
