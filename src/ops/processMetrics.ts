import { collectDefaultMetrics, Registry } from 'prom-client';

let processRegistry: Registry | null = null;

/**
 * Node's own metrics (CPU, memory, event-loop delay, GC, handles) on a registry of
 * their own. They describe the process, not one Chronicle instance, and
 * prom-client keeps their observers for the life of the process, so they are
 * collected once per process and shared by every instance's `/metrics` (tests run
 * several instances in one process). Never prom-client's global default registry.
 */
export const processMetricsRegistry = (): Registry => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};
