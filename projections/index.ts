import type { Projection, ReadModelDocument } from '../src/application/ports/ReadModelStore.js';

/** Every read model the runner keeps. Each issue adds its own. */
export const allProjections: readonly Projection<ReadModelDocument>[] = [];
