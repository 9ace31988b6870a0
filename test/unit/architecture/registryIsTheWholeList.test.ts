import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { AGGREGATES, STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { WEBHOOK_EVENT_TYPES } from '../../support/webhookEvents.js';

/** The project's root (this file runs from dist/test/unit/architecture). */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

/**
 * Literals outside src/features/ that may equal a registered name, each with why.
 * Reviewed: keep it short; a new entry needs a reason a reader accepts.
 */
const ALLOWED: readonly { readonly file: string; readonly literal: string; readonly why: string }[] = [];

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });

/** Every string literal (and template without substitutions) of a file, comments left out, with its line. */
const literalsOf = (path: string): { readonly text: string; readonly line: number }[] => {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: { text: string; line: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

describe('the registry is the whole list', () => {
  const registered = new Map<string, string>([
    ...[...STORED_EVENT_TYPES.keys()].map((type) => [type, 'a stored event type'] as const),
    ...WEBHOOK_EVENT_TYPES.map((type) => [type, 'a webhook event type'] as const),
    ...AGGREGATES.map((aggregate) => [aggregate.streamPrefix, `the stream prefix of ${aggregate.name}`] as const),
  ]);

  it('knows the names it guards (stored event types, webhook event types, stream prefixes)', () => {
    expect(registered.get('ContactCreated')).to.equal('a stored event type');
    expect(registered.get('deal.won')).to.equal('a webhook event type');
    expect([...registered.values()].filter((what) => what.startsWith('the stream prefix')).length).to.equal(AGGREGATES.length);
  });

  it('names none of them in a string literal of src/ outside src/features/, but for the reviewed few', () => {
    const outside = sourceFiles(join(root, 'src')).filter((path) => !relative(root, path).startsWith(join('src', 'features')));
    expect(outside.length).to.be.above(100);
    const found = outside.flatMap((path) =>
      literalsOf(path)
        .filter(({ text }) => registered.has(text))
        .map(({ text, line }) => ({ file: relative(root, path), line, literal: text, what: registered.get(text)! })),
    );
    const unexplained = found.filter(({ file, literal }) => !ALLOWED.some((allowed) => allowed.file === file && allowed.literal === literal));
    expect(unexplained.map(({ file, line, literal, what }) => `${file}:${line} '${literal}' (${what})`)).to.deep.equal([]);
  });

  it('would see one: the scan finds a registered name in a literal, not in a comment', () => {
    const made = ts.createSourceFile('x.ts', "// 'DealCreated' in a comment\nconst type = 'DealCreated';\n", ts.ScriptTarget.ES2022, true);
    const texts: string[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isStringLiteral(node)) texts.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(made);
    expect(texts.filter((text) => registered.has(text))).to.deep.equal(['DealCreated']);
  });
});
