import * as E from 'fp-ts/lib/Either.js';
import { HttpError } from '../HttpError.js';
import { parseMediaType } from './parseMediaType.js';

const SEND_JSON = 'Send the body as JSON with Content-Type: application/json.';

const unsupported = (detail: string, code: 'UNSUPPORTED_MEDIA_TYPE' | 'UNSUPPORTED_CHARSET'): HttpError =>
  new HttpError(415, 'Unsupported media type', `${detail} ${SEND_JSON}`, { code });

/**
 * Why a request's `Content-Type` cannot carry its body, or null when it can. Only
 * `application/json` is taken (any case, optional whitespace), with parameters
 * well formed by RFC 9110 (`parseMediaType`):
 *
 * - absent: 415 `UNSUPPORTED_MEDIA_TYPE`;
 * - malformed (`application/json; foo`): 400 `MALFORMED_CONTENT_TYPE`, naming what
 *   is wrong, never a body parsed by guess nor one dropped;
 * - another type, `application/*+json` included (`merge-patch+json`, `vnd.api+json`
 *   each give the body a meaning of their own that this API does not implement):
 *   415 `UNSUPPORTED_MEDIA_TYPE`;
 * - `charset` other than `utf-8` (any case, quoted or not), or given twice: 415
 *   `UNSUPPORTED_CHARSET` (JSON sent over a network is UTF-8, RFC 8259 §8.1); a body
 *   in another encoding would be read wrong.
 *
 * Other parameters are ignored: application/json defines none (RFC 8259 §11).
 */
export const jsonContentTypeError = (header: string | undefined): HttpError | null => {
  if (header === undefined || header === '') return unsupported('The request has a body but no Content-Type.', 'UNSUPPORTED_MEDIA_TYPE');
  const parsed = parseMediaType(header);
  if (E.isLeft(parsed)) {
    return new HttpError(400, 'Bad request', `The Content-Type header is malformed: ${parsed.left}. ${SEND_JSON}`, {
      code: 'MALFORMED_CONTENT_TYPE',
    });
  }
  const { type, parameters } = parsed.right;
  if (type !== 'application/json') return unsupported(`Content-Type ${type} is not accepted.`, 'UNSUPPORTED_MEDIA_TYPE');
  const charsets = parameters.get('charset') ?? [];
  if (charsets.length > 1) return unsupported('Content-Type names its charset more than once.', 'UNSUPPORTED_CHARSET');
  const charset = charsets[0];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    return unsupported(`The charset ${JSON.stringify(charset)} is not accepted: JSON bodies are UTF-8.`, 'UNSUPPORTED_CHARSET');
  }
  return null;
};
