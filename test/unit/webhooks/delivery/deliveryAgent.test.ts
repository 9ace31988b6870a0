import { expect } from 'chai';
import type { LookupAddress } from 'node:dns';
import {
  RefusedAddressError,
  UnsupportedTargetError,
  createDeliveryAgent,
  type DeliveryAgent,
  type ResolveHost,
} from '../../../../src/webhooks/deliveryAgent.js';
import { isRefusedAddress } from '../../../../src/webhooks/targetUrlGuard.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/** A resolver with fixed answers; every name it was asked about is kept. */
const fixedDns = (answers: Record<string, string[]>): ResolveHost & { asked: string[] } => {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
};

const post = (agent: DeliveryAgent, url: string, timeoutMs = 2000) =>
  agent.send({ url, headers: { 'webhook-id': 'evt-1' }, body: '{"a":1}' }, AbortSignal.timeout(timeoutMs));

describe('Webhook delivery agent', () => {
  let receiver: Receiver;
  let agent: DeliveryAgent | null = null;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    agent?.close();
    agent = null;
    await receiver.close();
  });

  describe('SSRF protection after DNS resolution', () => {
    it('refuses a name that resolves to a refused address, without connecting', async () => {
      const dns = fixedDns({ 'rebound.example': ['127.0.0.1'] });
      agent = createDeliveryAgent({ allowPrivateTargets: false, isRefusedAddress, resolve: dns });
      const error = await post(agent, `http://rebound.example:${receiver.port}/hook`).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RefusedAddressError).and.to.include({ address: '127.0.0.1' });
      expect(dns.asked).to.deep.equal(['rebound.example']);
      expect(receiver.connections()).to.equal(0);
    });

    it('refuses when any of the addresses is refused (a mixed answer), connecting to none', async () => {
      // The policy here refuses only 10/8, so loopback stands in for a public address.
      const refuses10 = (ip: string) => ip.startsWith('10.');
      const dns = fixedDns({ 'mixed.example': ['127.0.0.1', '10.1.2.3'] });
      agent = createDeliveryAgent({ allowPrivateTargets: false, isRefusedAddress: refuses10, resolve: dns });
      const error = await post(agent, `http://mixed.example:${receiver.port}/hook`).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RefusedAddressError).and.to.include({ address: '10.1.2.3' });
      expect(receiver.connections()).to.equal(0);
    });

    it('connects to the address it checked (the resolved one), with the name as Host', async () => {
      const refuses10 = (ip: string) => ip.startsWith('10.');
      const dns = fixedDns({ 'public.example': ['127.0.0.1'] });
      agent = createDeliveryAgent({ allowPrivateTargets: false, isRefusedAddress: refuses10, resolve: dns });
      expect(await post(agent, `http://public.example:${receiver.port}/hook`)).to.include({ status: 200, retryAfter: null });
      expect(receiver.requests[0]?.headers.host).to.equal(`public.example:${receiver.port}`);
    });

    it('refuses IP literals (which need no lookup) in any notation', async () => {
      const dns = fixedDns({});
      agent = createDeliveryAgent({ allowPrivateTargets: false, isRefusedAddress, resolve: dns });
      for (const host of ['127.0.0.1', '2130706433', '0x7f.1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254']) {
        const error = await post(agent, `http://${host}:${receiver.port}/hook`).catch((e: unknown) => e);
        expect(error, host).to.be.instanceOf(RefusedAddressError);
      }
      expect(dns.asked).to.deep.equal([]);
      expect(receiver.connections()).to.equal(0);
    });

    it('delivers to private targets when allowPrivateTargets is set (development, tests)', async () => {
      const dns = fixedDns({ 'receiver.test': ['127.0.0.1'] });
      agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress, resolve: dns });
      expect((await post(agent, `http://receiver.test:${receiver.port}/a`)).status).to.equal(200);
      expect((await post(agent, `${receiver.url}/b`)).status).to.equal(200);
      expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/a', '/b']);
    });

    it('reports a name that does not resolve', async () => {
      agent = createDeliveryAgent({ allowPrivateTargets: false, isRefusedAddress, resolve: fixedDns({}) });
      const error = (await post(agent, 'http://nowhere.example/hook').catch((e: unknown) => e)) as NodeJS.ErrnoException;
      expect(error.code).to.equal('ENOTFOUND');
    });

    it('only speaks http and https', async () => {
      agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
      expect(await post(agent, 'ftp://127.0.0.1/x').catch((e: unknown) => e)).to.be.instanceOf(UnsupportedTargetError);
      expect(await post(agent, 'not a url').catch((e: unknown) => e)).to.be.instanceOf(UnsupportedTargetError);
    });
  });

  describe('one POST', () => {
    beforeEach(() => {
      agent = createDeliveryAgent({ allowPrivateTargets: true, isRefusedAddress });
    });

    it('sends the body as JSON with the given headers', async () => {
      await post(agent!, `${receiver.url}/hook`);
      const [request] = receiver.requests;
      expect(request?.body).to.equal('{"a":1}');
      expect(request?.headers).to.include({ 'content-type': 'application/json', 'webhook-id': 'evt-1', 'content-length': '7' });
    });

    it('posts to each target URL’s own path and query, the same URL again as the first time', async () => {
      for (const path of ['/hook?tenant=a&n=1', '/hook?tenant=a&n=1', '/other', '/hook?tenant=b']) {
        expect((await post(agent!, `${receiver.url}${path}`)).status).to.equal(200);
      }
      expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/hook?tenant=a&n=1', '/hook?tenant=a&n=1', '/other', '/hook?tenant=b']);
      expect(receiver.requests.map((r) => r.headers.host)).to.deep.equal(Array(4).fill(`127.0.0.1:${receiver.port}`));
    });

    it('does not follow a redirect: the 3xx is the answer', async () => {
      receiver.on('/moved', (_req, res) => res.writeHead(307, { location: '/target' }).end());
      expect(await post(agent!, `${receiver.url}/moved`)).to.include({ status: 307 });
      expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/moved']);
    });

    it('gives the Retry-After header back', async () => {
      receiver.on('/busy', (_req, res) => res.writeHead(429, { 'retry-after': '30' }).end());
      expect(await post(agent!, `${receiver.url}/busy`)).to.include({ status: 429, retryAfter: '30' });
    });

    it('gives the response’s headers and body back, for the delivery log', async () => {
      receiver.on('/echo', (req, res) => res.writeHead(500, { 'x-request-id': 'r-1', 'set-cookie': ['a=1', 'b=2'] }).end(`echo ${req.body}`));
      const response = await post(agent!, `${receiver.url}/echo`);
      expect(response).to.include({ status: 500, body: 'echo {"a":1}', bodyTruncated: false });
      expect(response.headers).to.include({ 'x-request-id': 'r-1', 'set-cookie': 'a=1, b=2' });
    });

    it('keeps the first 64 KiB of a longer body, and says it was cut', async () => {
      receiver.on('/big', (_req, res) => res.writeHead(200).end('é'.repeat(40_000)));
      const response = await post(agent!, `${receiver.url}/big`);
      expect(response.status).to.equal(200);
      expect(response.bodyTruncated).to.equal(true);
      expect(Buffer.byteLength(response.body!, 'utf8')).to.be.at.most(64 * 1024 + 2);
      expect(response.body!.startsWith('é'.repeat(1000))).to.equal(true);
    });

    it('is cut off by the signal when no headers come', async () => {
      receiver.on('/hang', () => undefined);
      const started = Date.now();
      const error = (await post(agent!, `${receiver.url}/hang`, 150).catch((e: unknown) => e)) as Error;
      expect(error.name).to.equal('TimeoutError');
      // Cut off by the signal's timer: not before it (the request, sent, was never answered).
      expect(Date.now() - started).to.be.at.least(140);
      expect(receiver.requests.map((r) => r.path)).to.deep.equal(['/hang']);
    });

    it('is cut off by the signal when the body never ends, even after a 200', async () => {
      receiver.on('/trickle', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      });
      const error = (await post(agent!, `${receiver.url}/trickle`, 150).catch((e: unknown) => e)) as Error;
      expect(error.name).to.equal('TimeoutError');
    });

    it('stops reading a huge response once it has enough', async () => {
      receiver.on('/huge', (_req, res) => {
        res.writeHead(200);
        res.write(Buffer.alloc(200 * 1024));
      });
      expect((await post(agent!, `${receiver.url}/huge`, 2000)).status).to.equal(200);
    });
  });
});
