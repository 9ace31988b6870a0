import { consoleLinkAggregate } from './application/consoleLinkAggregate.js';
import { adminConsoleSessionsResource } from './admin/consoleSessionAdminRoutes.js';
import type { Feature } from '../Feature.js';
import { loginRoutes } from './routes/loginRoutes.js';
import { overviewRoutes } from './routes/overviewRoutes.js';
import { searchRoutes } from './routes/searchRoutes.js';
import { sessionRoutes } from './routes/sessionRoutes.js';
import { consoleLinkPersonalData } from './domain/consoleLinkPersonalData.js';

/**
 * The customer console: its single-use links are streams of the log, issued
 * over the admin API (`/admin/companies/:id/console-sessions`) or the CLI; its
 * pages are a link's own, the sign-out, the overview and the header's search
 * (the company's contacts and deals, each linked to its history). The console's kernel (src/console:
 * layout, sessions, CSRF, headers) mounts every feature's pages beside the API;
 * its sessions and usage counters are stores of their own.
 */
export const customerConsole: Feature = {
  name: 'console',
  aggregates: [consoleLinkAggregate],
  personalData: consoleLinkPersonalData,
  secretEventFields: { ConsoleLinkIssued: ['tokenHash'] },
  adminResources: [adminConsoleSessionsResource],
  consolePages: [
    { routes: loginRoutes, signedIn: false },
    { routes: sessionRoutes, signedIn: true },
    { routes: overviewRoutes, signedIn: true },
    { routes: searchRoutes, signedIn: true },
  ],
};

// What the CLI and the start-up use of this one.
export { issueConsoleLink } from './application/issueConsoleLink.js';
export { describeConsoleLinkError } from './domain/consoleLinkErrors.js';
export { consoleLinkUrl } from './routes/consoleLinkUrl.js';
