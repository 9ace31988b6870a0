import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { startHarness, type Harness } from '../support/httpHarness.js';

/** Sends `parts` with a pause between them; resolves with what the server answered before closing. */
const trickle = (port: number, parts: readonly string[], pauseMs: number): Promise<{ answer: string }> =>
  new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let answer = '';
    let i = 0;
    const timer = setInterval(() => {
      if (i < parts.length && !socket.destroyed) socket.write(parts[i++]!);
    }, pauseMs);
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer });
    });
  });

describe('HTTP: slow clients are cut off', function () {
  this.timeout(10_000);
  let api: Harness;
  before(async () => (api = await startHarness({}, { headersMs: 300, requestMs: 600, checkEveryMs: 50 })));
  after(() => api.close());

  it('closes a connection whose headers never finish, with 408', async () => {
    // The client never finishes: only the server's timeout (headersMs) answers and closes the connection.
    const { answer } = await trickle(api.chronicle.port!, ['GET /health HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n'], 150);
    expect(answer).to.match(/^HTTP\/1\.1 408/);
  });

  it('closes a connection whose body never finishes, with 408', async () => {
    const head = `POST /contacts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nAuthorization: Bearer ${api.key}\r\n\r\n`;
    // The client never finishes: only the server's timeout (requestMs) answers and closes the connection.
    const { answer } = await trickle(api.chronicle.port!, [head, '{"na', 'me":', '"x",'], 250);
    expect(answer).to.match(/^HTTP\/1\.1 408/);
  });
});
