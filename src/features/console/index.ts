import { consoleLinkAggregate } from './application/consoleLinkAggregate.js';
import { adminConsoleSessionsResource } from './admin/consoleSessionAdminRoutes.js';
import type { Feature } from '../Feature.js';

/**
 * The customer console: its single-use links are streams of the log, issued
 * over the admin API (`/admin/companies/:id/console-sessions`) or the CLI. Its pages
 * (src/console) are mounted beside the API by the start-up; its sessions and
 * usage counters are stores of their own.
 */
export const customerConsole: Feature = {
  name: 'console',
  aggregates: [consoleLinkAggregate],
  adminResources: [adminConsoleSessionsResource],
};
