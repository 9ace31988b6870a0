import { expect } from 'chai';
import { startHarness, type ApiResponse, type Harness } from '../support/httpHarness.js';
import { rawExchange } from '../support/rawHttp.js';

let phoneSeq = 0;
const phone = () => `+4915900${String(++phoneSeq).padStart(5, '0')}`;

describe('HTTP: request bodies and their Content-Type', function () {
  this.timeout(30_000);
  let api: Harness;
  before(async () => (api = await startHarness()));
  after(() => api.close());

  const send = (method: string, path: string, contentType: string | null, body: unknown): Promise<ApiResponse> =>
    api.request(method, path, { rawBody: typeof body === 'string' ? body : JSON.stringify(body), contentType });
  const newContact = () => ({ name: 'Grace Hopper', phoneNumber: phone() });

  describe('a Content-Type that is application/json with well-formed parameters', () => {
    for (const contentType of [
      'application/json',
      'Application/JSON',
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json ;  charset="utf-8"',
      'application/json\t;\tcharset=utf-8',
      // Empty parameters are well formed in RFC 9110's grammar.
      'application/json;',
      'application/json;;',
      'application/json; ; charset=utf-8;',
      // Parameters application/json does not define are ignored; a quoted value may hold ";".
      'application/json; profile="https://example.com/a;b"; v=1',
    ]) {
      it(`reads the body with ${JSON.stringify(contentType)}`, async () => {
        const contact = newContact();
        const res = await send('POST', '/contacts', contentType, contact);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body.data).to.include({ name: contact.name, phoneNumber: contact.phoneNumber });
      });
    }

    it('reads the body of PUT /contacts/:id sent with application/json;; (today it was dropped)', async () => {
      const created = await send('POST', '/contacts', 'application/json', newContact());
      const res = await send('PUT', `/contacts/${created.body.data.id}`, 'application/json;;', { city: 'Arlington' });
      expect(res.status).to.equal(200);
      expect(res.body.data.city).to.equal('Arlington');
    });
  });

  describe('a malformed Content-Type: 400 naming what is wrong, the body never read', () => {
    const cases: readonly { readonly method: string; readonly path: string; readonly contentType: string; readonly names: RegExp }[] = [
      { method: 'POST', path: '/contacts', contentType: 'application/json; foo', names: /"foo" has no "=value"/ },
      { method: 'POST', path: '/deals', contentType: 'application/json; charset', names: /"charset" has no "=value"/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json; charset = utf-8', names: /"charset" has no "=value" \(no space is allowed around "="\)/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json; charset=', names: /"charset" has no valid value/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json; charset="utf-8', names: /"charset" has no valid value/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json; =utf-8', names: /"=utf-8" ?, which is not a parameter name|not a parameter name/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json/x', names: /"\/x" follows the media type/ },
      { method: 'POST', path: '/contacts', contentType: 'application/json, text/plain', names: /follows the media type/ },
      { method: 'POST', path: '/contacts', contentType: 'json', names: /does not start with a media type/ },
      { method: 'POST', path: '/contacts', contentType: '; charset=utf-8', names: /does not start with a media type/ },
    ];
    for (const { method, path, contentType, names } of cases) {
      it(`${method} ${path} with ${JSON.stringify(contentType)}`, async () => {
        const res = await send(method, path, contentType, path === '/deals' ? { title: 'T', value: 1 } : newContact());
        expect(res.status).to.equal(400);
        expect(res.body).to.include({ success: false, error: 'Bad request', code: 'MALFORMED_CONTENT_TYPE' });
        expect(res.body.message).to.match(/^The Content-Type header is malformed: /).and.match(names);
      });
    }

    it('PUT /contacts/:id with a malformed header changes nothing', async () => {
      const created = await send('POST', '/contacts', 'application/json', newContact());
      const res = await send('PUT', `/contacts/${created.body.data.id}`, 'application/json; x', { city: 'Paris' });
      expect(res.status).to.equal(400);
      const read = await api.request('GET', `/contacts/${created.body.data.id}`);
      expect(read.body.data.city).to.equal(null);
    });
  });

  describe('another media type or charset: 415', () => {
    for (const [contentType, code] of [
      ['text/plain', 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/x-www-form-urlencoded', 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/merge-patch+json', 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/vnd.api+json', 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/jsonx', 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/json; charset=iso-8859-1', 'UNSUPPORTED_CHARSET'],
      ['application/json; charset=utf8', 'UNSUPPORTED_CHARSET'],
      ['application/json; charset=utf-8; Charset=utf-16', 'UNSUPPORTED_CHARSET'],
    ] as const) {
      it(`${JSON.stringify(contentType)}: ${code}`, async () => {
        const res = await send('POST', '/contacts', contentType, newContact());
        expect(res.status).to.equal(415);
        expect(res.body).to.include({ success: false, error: 'Unsupported media type', code });
      });
    }

    it('no Content-Type on a write, with or without a body: 415', async () => {
      const withBody = await send('POST', '/contacts', null, newContact());
      expect(withBody.status).to.equal(415);
      expect(withBody.body.code).to.equal('UNSUPPORTED_MEDIA_TYPE');
      const withoutBody = await api.request('POST', '/contacts', { contentType: null });
      expect(withoutBody.status).to.equal(415);
    });

    it('a read ignores a body and its Content-Type, as before', async () => {
      const { answer } = await rawExchange(api.chronicle.port!, [
        `GET /contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.key}\r\nContent-Type: application/json; foo\r\n` +
          'Content-Length: 5\r\nConnection: close\r\n\r\nhello',
      ]);
      expect(answer).to.match(/^HTTP\/1\.1 200 /);
    });
  });

  describe('a key that could reach a prototype: 400 naming it', () => {
    const refused = async (raw: string, key: string, path: string) => {
      const res = await send('POST', '/contacts', 'application/json', raw);
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ success: false, error: 'Bad request', code: 'FORBIDDEN_KEY' });
      expect(res.body.message).to.equal(`The request body contains the key "${key}" (at ${path}), which is not allowed.`);
      expect(res.body.details).to.deep.equal({ key, path });
    };

    it('__proto__ at the top', () => refused(`{"name":"x","phoneNumber":"${phone()}","__proto__":{"admin":true}}`, '__proto__', '__proto__'));

    it('__proto__ nested in objects and arrays', () =>
      refused(`{"name":"x","tags":["a",{"b":[1,{"__proto__":{}}]}]}`, '__proto__', 'tags[1].b[1].__proto__'));

    it('__proto__ spelled with JSON escapes', () => refused('{"a":{"\\u005f_proto\\u005F_":1}}', '__proto__', 'a.__proto__'));

    it('constructor holding prototype, nested', () =>
      refused('{"name":"x","a":{"constructor":{"prototype":{"polluted":true}}}}', 'constructor.prototype', 'a.constructor.prototype'));

    it('names the first such key in the body’s order', () =>
      refused('{"first":{"__proto__":1},"second":{"__proto__":2}}', '__proto__', 'first.__proto__'));

    it('takes a body that only mentions the names in values, or has a constructor key without prototype', async () => {
      const res = await send('POST', '/contacts', 'application/json', { name: '__proto__ constructor', phoneNumber: phone(), constructor: 'builder' });
      expect(res.status).to.equal(201);
      expect(res.body.data.name).to.equal('__proto__ constructor');
    });

    it('still answers invalid JSON with 400 INVALID_JSON', async () => {
      const res = await send('POST', '/contacts', 'application/json', '{"name": ');
      expect(res.status).to.equal(400);
      expect(res.body).to.include({ error: 'Bad request', code: 'INVALID_JSON', message: 'The request body is not valid JSON.' });
    });

    it('handles a deeply nested body without failing', async () => {
      const depth = 100_000;
      const res = await send('POST', '/contacts', 'application/json', `${'['.repeat(depth)}{"__proto__":1}${']'.repeat(depth)}`);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('FORBIDDEN_KEY');
      expect(res.body.details.path.length).to.be.at.most(201);
    });
  });
});

describe('HTTP: request bodies in a second server of the same process', function () {
  this.timeout(30_000);
  it('reads and refuses bodies as the first one does', async () => {
    const [first, second] = [await startHarness(), await startHarness()];
    try {
      for (const api of [first, second]) {
        const read = await api.request('POST', '/contacts', { rawBody: JSON.stringify({ name: 'Twice', phoneNumber: phone() }), contentType: 'application/json;;' });
        expect(read.status).to.equal(201);
        const invalid = await api.request('POST', '/contacts', { rawBody: '{', contentType: 'application/json' });
        expect(invalid.status).to.equal(400);
        expect(invalid.body.code).to.equal('INVALID_JSON');
      }
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
