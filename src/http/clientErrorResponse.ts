import { STATUS_CODES, maxHeaderSize, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HttpError, errorBody } from './HttpError.js';

/** How long a connection answered this way may stay open for its client to read the answer and close. */
const CLOSE_GRACE_MS = 1_000;

/** A parser error of Node (`HPE_…`, with llhttp's fixed `reason`) or its request timeout. */
interface ClientError extends Error {
  readonly code?: string;
  readonly reason?: string;
}

/**
 * The spec's error for a request Node's HTTP parser refused before any route saw it.
 * The `message` quotes llhttp's own fixed reason (never a byte of the request).
 */
export const clientErrorOf = (error: ClientError): HttpError => {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'Request header fields too large', `The request's headers exceed ${maxHeaderSize / 1024} KB.`, {
        code: 'HEADERS_TOO_LARGE',
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new HttpError(413, 'Payload too large', 'The chunk extensions of the request body are too large.', { code: 'CHUNK_EXTENSIONS_TOO_LARGE' });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'Request timeout', 'The request (its headers, then its body) did not arrive in time.', { code: 'REQUEST_TIMEOUT' });
    default: {
      const reason = typeof error.reason === 'string' && error.reason !== '' ? ` (${error.reason.replace(/[^\x20-\x7E]/g, '')})` : '';
      return new HttpError(400, 'Bad request', `The request is not valid HTTP/1.1${reason}.`, { code: 'MALFORMED_REQUEST' });
    }
  }
};

/** The raw HTTP/1.1 response carrying `error`'s body; the connection closes after it. */
export const rawErrorResponse = (error: HttpError, now: Date): string => {
  const body = JSON.stringify(errorBody(error, now));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    'Connection: close\r\n' +
    '\r\n' +
    body
  );
};

/**
 * Answers what Node's HTTP parser refuses (431 oversized headers, 400 bad framing
 * such as an invalid Transfer-Encoding or Content-Length, 408 headers or body too
 * slow) with the spec's JSON error body, instead of Node's empty one. As Node's
 * own answer does, it writes only where the connection still allows an answer:
 * the socket is writable and no response of a request on it has started (Koa may
 * be answering the request whose body timed out). The socket is ended, then
 * destroyed if its client has not closed it within a second. Never throws.
 */
export const answerClientErrors = (server: Server, now: () => Date = () => new Date()): void => {
  // The response in progress on each connection (kept until it finishes), to know whether one has started.
  const inProgress = new WeakMap<Socket, ServerResponse>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    inProgress.set(request.socket, response);
    response.once('finish', () => {
      if (inProgress.get(request.socket) === response) inProgress.delete(request.socket);
    });
  });
  server.on('clientError', (error: ClientError, socket: Socket) => {
    try {
      if (!socket.writable || inProgress.get(socket)?.headersSent === true) {
        socket.destroy();
        return;
      }
      socket.end(rawErrorResponse(clientErrorOf(error), now()));
      const cutOff = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
      cutOff.unref();
      socket.once('close', () => clearTimeout(cutOff));
    } catch {
      socket.destroy();
    }
  });
};
