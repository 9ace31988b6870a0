import type { EventMetadata } from '../../shared/EventMetadata.js';

/**
 * Who asks for a write, as the way in knows it (API key, CLI, system) and its
 * correlation id; the application function adds the company the events belong to.
 */
export type WriteMetadata = Omit<EventMetadata, 'companyId'>;
