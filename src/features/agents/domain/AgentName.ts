import { DisplayName } from '../../../shared/DisplayName.js';

/** An agent's display name (see DisplayName). */
export const AgentName = DisplayName;
export type AgentName = DisplayName;
