'use strict';

const { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { APP_DIR, appFiles } = require('../../lib/app');

/** A copy of the app's files in a temporary folder, with `edit(json)` applied to one file (it returns the new content). */
const brokenCopy = (path, edit) => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-make-app-'));
  for (const file of appFiles()) cpSync(join(APP_DIR, file), join(dir, file));
  const original = JSON.parse(readFileSync(join(dir, path), 'utf8'));
  writeFileSync(join(dir, path), JSON.stringify(edit(structuredClone(original)), null, 2));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

module.exports = { brokenCopy };
