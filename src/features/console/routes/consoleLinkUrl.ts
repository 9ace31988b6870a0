import { CONSOLE_PATH } from '../../../console/consolePath.js';

/** The page a link opens: it shows the link's state, and redeems it with a POST (never on a GET, which link previewers send). */
export const CONSOLE_LOGIN_PATH = `${CONSOLE_PATH}/login`;

/**
 * The link the platform hands its customer: `<origin><basePath>/console/login?token=<token>`.
 * The token travels in the query, which Chronicle's request log leaves out (it logs the path only).
 */
export const consoleLinkUrl = (origin: string, basePath: string, token: string): string =>
  `${origin.replace(/\/+$/, '')}${basePath}${CONSOLE_LOGIN_PATH}?token=${encodeURIComponent(token)}`;
