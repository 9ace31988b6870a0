'use strict';

const { readFileSync, readdirSync } = require('node:fs');
const { basename, join, resolve } = require('node:path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');
const { readJsonc } = require('./app');

/** Make's published schemas sit beside the checkout: `../shared/make-app-schemas/` from the repository's root. */
const REPO_ROOT = resolve(__dirname, '..', '..', '..');
const SCHEMA_DIR = resolve(REPO_ROOT, '..', 'shared', 'make-app-schemas');

/** A VS Code `fileMatch` pattern as a regular expression: without a slash it matches the file name, `**` any folders. */
const patternToRegExp = (pattern) => {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  const body = escaped.replace(/\*\*\//g, '(?:.*/)?').replace(/\*/g, '[^/]*');
  return new RegExp(`^${body}$`);
};

/**
 * The editor's schemas, each registered under its file name (they refer to one another by it), and
 * the schema for a file: the last entry of `file-patterns.json` whose pattern matches (the editor's
 * order puts the specific ones after the general ones).
 */
const loadSchemas = (dir = SCHEMA_DIR) => {
  // strict: false for the editor-only keywords (errorMessage, doNotSuggest); unicodeRegExp: false for a pattern holding `\-`.
  const ajv = new Ajv({ strict: false, unicodeRegExp: false, allErrors: true });
  addFormats(ajv);
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'file-patterns.json')) {
    ajv.addSchema(JSON.parse(readFileSync(join(dir, file), 'utf8')), file);
  }
  const patterns = JSON.parse(readFileSync(join(dir, 'file-patterns.json'), 'utf8')).flatMap(({ fileMatch, schema }) =>
    fileMatch.map((pattern) => ({ pattern, regExp: patternToRegExp(pattern), schema, byName: !pattern.includes('/') })),
  );
  /**
   * The schema of an app file (path relative to the app's folder). Static parameters
   * (`*.static-params.iml.json`) are not in the editor's table; they are a module's `parameters`
   * code, which the editor checks with parameters.json, so they are checked with it too.
   */
  const schemaFor = (path) => {
    let found = null;
    for (const entry of patterns) if (entry.regExp.test(entry.byName ? basename(path) : path)) found = entry.schema;
    if (!found && path.endsWith('.static-params.iml.json')) found = 'parameters.json';
    return found;
  };
  const validate = (schemaName, value) => {
    const check = ajv.getSchema(schemaName);
    if (!check) throw new Error(`no schema ${schemaName}`);
    return check(value) ? [] : check.errors.map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
  /** Validates one file of the app: `{schema, errors}`. */
  const validateFile = (appDir, path) => {
    const schema = schemaFor(path);
    if (!schema) return { schema: null, errors: [`no schema matches ${path}`] };
    return { schema, errors: validate(schema, readJsonc(join(appDir, path))) };
  };
  return { schemaFor, validate, validateFile };
};

module.exports = { SCHEMA_DIR, REPO_ROOT, loadSchemas, patternToRegExp };
