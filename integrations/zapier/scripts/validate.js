'use strict';
// Validates the integration's definition as the platform does (zapier-platform-core compiles the app,
// replaces functions by their placeholders, and checks it with zapier-platform-schema), offline.
const { compileApp, validateApp } = require('zapier-platform-core/src/tools/schema');
const app = require('..');

const errors = validateApp(compileApp(app));
if (errors.length > 0) {
  for (const error of errors) console.error(`${error.property}: ${error.message}`);
  process.exit(1);
}
console.log('The Zapier integration definition is valid.');
