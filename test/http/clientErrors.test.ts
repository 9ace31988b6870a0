import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../../src/http/clientErrorResponse.js';
import { startHarness, type Harness } from '../support/httpHarness.js';
import { parseRawResponses, rawExchange, type RawResponse } from '../support/rawHttp.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The one response answered on a connection, checked to be the spec's JSON error body on a closing connection. */
const jsonErrorOf = (answer: string, status: number, code: string): RawResponse & { readonly json: any } => {
  const responses = parseRawResponses(answer);
  expect(responses, answer).to.have.length(1);
  const response = responses[0]!;
  expect(response.status, answer).to.equal(status);
  expect(response.headers['content-type']).to.equal('application/json; charset=utf-8');
  expect(response.headers.connection).to.equal('close');
  expect(Number(response.headers['content-length'])).to.equal(Buffer.byteLength(response.body));
  const json = JSON.parse(response.body);
  expect(json).to.include({ success: false, code });
  expect(json.error).to.be.a('string').and.not.equal('');
  expect(json.message).to.be.a('string').and.not.equal('');
  expect(json.timestamp).to.match(ISO_MS);
  return { ...response, json };
};

describe('HTTP: requests refused by Node’s HTTP parser get the spec’s JSON error body', function () {
  this.timeout(15_000);
  let api: Harness;
  let port: number;
  before(async () => {
    api = await startHarness({}, { headersMs: 400, requestMs: 800, checkEveryMs: 50 });
    port = api.chronicle.port!;
  });
  after(() => api.close());

  it('431 for headers over the limit', async () => {
    const { answer } = await rawExchange(port, [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    const { json } = jsonErrorOf(answer, 431, 'HEADERS_TOO_LARGE');
    expect(json.error).to.equal('Request header fields too large');
  });

  const malformed: readonly (readonly [string, string, RegExp])[] = [
    ['an invalid Transfer-Encoding', 'POST /contacts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n', /Transfer-Encoding/i],
    ['Content-Length beside Transfer-Encoding', 'POST /contacts HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n', /Content-Length/i],
    ['a Content-Length that is not a number', 'POST /contacts HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', /Content-Length/i],
    ['two different Content-Lengths', 'POST /contacts HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', /Content-Length/i],
    ['an invalid chunk size', 'POST /contacts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk/i],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', /./],
    ['a header name with a space', 'GET /health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', /./],
  ];
  for (const [what, request, reason] of malformed) {
    it(`400 for ${what}`, async () => {
      const { answer } = await rawExchange(port, [request]);
      const { json } = jsonErrorOf(answer, 400, 'MALFORMED_REQUEST');
      expect(json.error).to.equal('Bad request');
      expect(json.message).to.match(/^The request is not valid HTTP\/1\.1 \(.+\)\.$/).and.match(reason);
    });
  }

  it('408 for headers that never finish', async () => {
    // The client never finishes: only the server's timeout answers and closes the connection.
    const { answer } = await rawExchange(port, ['GET /health HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n'], 150);
    const { json } = jsonErrorOf(answer, 408, 'REQUEST_TIMEOUT');
    expect(json.error).to.equal('Request timeout');
  });

  it('408 for a body that never finishes', async () => {
    const head = `POST /contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: Bearer ${api.key}\r\n\r\n`;
    // The client never finishes: only the server's timeout answers and closes the connection.
    const { answer } = await rawExchange(port, [head, '{"na', 'me":', '"x",', '"a":', '"b",'], 200);
    jsonErrorOf(answer, 408, 'REQUEST_TIMEOUT');
  });

  it('answers a malformed request after a finished one on the same connection', async () => {
    const { answer } = await rawExchange(port, ['GET /health HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'], 300);
    const responses = parseRawResponses(answer);
    expect(responses.map((r) => r.status)).to.deep.equal([200, 400]);
    expect(JSON.parse(responses[1]!.body)).to.include({ success: false, code: 'MALFORMED_REQUEST' });
  });

  it('the server keeps serving afterwards', async () => {
    const res = await api.request('GET', '/contacts');
    expect(res.status).to.equal(200);
  });
});

describe('answerClientErrors: a response already started on the connection', function () {
  this.timeout(10_000);
  let server: Server;
  before(async () => {
    // A response that starts at once and never ends: a parse error after it must not write into it.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.write('started');
    });
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('closes the connection without writing an error into the started response', async () => {
    const { port } = server.address() as AddressInfo;
    const { answer } = await rawExchange(port, ['GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'GET / HTTP/1.1\r\nContent-Length: abc\r\n\r\n'], 200);
    expect(answer).to.match(/^HTTP\/1\.1 200 /);
    expect(answer).to.include('started');
    expect(answer).not.to.include('MALFORMED_REQUEST');
    expect(answer).not.to.include('HTTP/1.1 400');
  });
});
