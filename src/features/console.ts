import { consoleLinkAggregate } from '../application/aggregates/consoleLinkAggregate.js';
import type { Feature } from './Feature.js';

/**
 * The customer console: its single-use links are streams of the log. Its pages
 * (src/console) are mounted beside the API by the start-up; its sessions and
 * usage counters are stores of their own.
 */
export const customerConsole: Feature = {
  name: 'console',
  aggregates: [consoleLinkAggregate],
};
