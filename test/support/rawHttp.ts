import { connect } from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Sends `parts` on a new connection to 127.0.0.1:`port`, `pauseMs` apart (0: at once),
 * and resolves with all the server sent until it closed the connection, and when.
 */
export const rawExchange = (port: number, parts: readonly string[], pauseMs = 0): Promise<{ readonly answer: string; readonly closedAfterMs: number }> =>
  new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let next = 0;
    const sendNext = () => {
      if (next < parts.length && !socket.destroyed && socket.writable) socket.write(parts[next++]!);
      if (next < parts.length) timer = setTimeout(sendNext, pauseMs);
    };
    let timer: NodeJS.Timeout | undefined;
    socket.once('connect', sendNext);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    // A reset after the server answered and closed: the answer read so far is what counts.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
  });

/** The responses in `answer`, in order (each framed by its Content-Length, or to the end). */
export const parseRawResponses = (answer: string): RawResponse[] => {
  const responses: RawResponse[] = [];
  let rest = answer;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`not an HTTP response: ${JSON.stringify(rest.slice(0, 200))}`);
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine!)?.[1];
    if (status === undefined) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = headers['content-length'] === undefined ? rest.length - headEnd - 4 : Number(headers['content-length']);
    responses.push({ status: Number(status), headers, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return responses;
};
