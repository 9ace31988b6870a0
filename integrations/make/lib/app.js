'use strict';

const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { parse, printParseErrorCode } = require('jsonc-parser');

/** The app's folder (makecomapp.json and the component files). */
const APP_DIR = join(__dirname, '..');

/** An `.iml.json` or `.json` file of the app: JSON with comments allowed, as the Apps Editor reads it. */
const readJsonc = (path) => {
  const errors = [];
  const value = parse(readFileSync(path, 'utf8'), errors, { allowTrailingComma: false, disallowComments: false });
  if (errors.length > 0) {
    throw new Error(`${path}: ${errors.map((e) => `${printParseErrorCode(e.error)} at ${e.offset}`).join(', ')}`);
  }
  return value;
};

/**
 * The app as makecomapp.json describes it: each component's metadata and its code files, parsed.
 * `codes[codeType]` is the parsed content (null when makecomapp.json maps the code to null).
 */
const loadApp = (dir = APP_DIR) => {
  const manifest = readJsonc(join(dir, 'makecomapp.json'));
  const components = {};
  for (const [type, byId] of Object.entries(manifest.components)) {
    components[type] = {};
    for (const [id, meta] of Object.entries(byId)) {
      if (!meta) continue;
      const codes = {};
      for (const [codeType, path] of Object.entries(meta.codeFiles)) codes[codeType] = path === null ? null : readJsonc(join(dir, path));
      components[type][id] = { id, meta, codes };
    }
  }
  const general = {};
  for (const [codeType, path] of Object.entries(manifest.generalCodeFiles)) {
    general[codeType] = path === null ? null : path.endsWith('.md') ? readFileSync(join(dir, path), 'utf8') : readJsonc(join(dir, path));
  }
  return { dir, manifest, components, general };
};

/** Every file of the app folder that is part of the app: makecomapp.json and the files it names. */
const appFiles = (dir = APP_DIR) => {
  const manifest = readJsonc(join(dir, 'makecomapp.json'));
  const files = ['makecomapp.json'];
  for (const path of Object.values(manifest.generalCodeFiles)) if (path) files.push(path);
  for (const byId of Object.values(manifest.components)) {
    for (const meta of Object.values(byId)) if (meta) for (const path of Object.values(meta.codeFiles)) if (path) files.push(path);
  }
  return files;
};

/** Every file under the app's component folders, whether makecomapp.json names it or not. */
const filesOnDisk = (dir = APP_DIR) => {
  const found = [];
  const walk = (relative) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path);
      else found.push(path);
    }
  };
  for (const folder of ['connections', 'modules', 'webhooks', 'rpcs', 'general']) walk(folder);
  return found;
};

module.exports = { APP_DIR, readJsonc, loadApp, appFiles, filesOnDisk };
