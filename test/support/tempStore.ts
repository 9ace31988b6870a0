import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary folder removed by `dispose`. */
export const tempDir = (prefix = 'chronicle-'): { readonly path: string; readonly dispose: () => void } => {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, dispose: () => rmSync(path, { recursive: true, force: true }) };
};
