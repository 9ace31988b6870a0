'use strict';

/**
 * A small evaluator for the part of Make's IML that this app uses, written from Make's
 * documentation (it is not Make's engine, which is not public):
 *
 * - a string that is exactly one `{{expression}}` gives the expression's value with its type
 *   (a collection stays a collection, a number a number); a string mixing text and
 *   expressions gives text, with an empty or missing value as nothing;
 * - expressions: variables and dotted paths (`parameters.name`, `body.data.id`, `item`),
 *   literals (`'text'`, `"text"`, numbers, `true`, `false`, `null`), `+` (adds numbers, joins
 *   text), `-`, `*`, `/`, comparisons (`=` and `==` alike, `!=`, `<`, `<=`, `>`, `>=`), `&&`,
 *   `||`, `!`, parentheses and function calls;
 * - function arguments are separated by `,` (the apps' JSON) or `;` (the help centre's
 *   examples), so the documentation's examples run as written;
 * - functions: if, ifempty, switch, omit, pick, get, distinct, length, lower, upper, trim,
 *   join, toString.
 *
 * Anything else is refused with an error naming it, so an expression the evaluator does not
 * know fails a test instead of being guessed at.
 */

class ImlError extends Error {}

// ---- tokens ----

const PUNCTUATION = ['==', '!=', '<=', '>=', '&&', '||', '(', ')', ',', ';', '.', '[', ']', '+', '-', '*', '/', '<', '>', '=', '!'];

const tokenize = (source) => {
  const tokens = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === "'" || c === '"') {
      let value = '';
      i += 1;
      while (i < source.length && source[i] !== c) {
        if (source[i] === '\\' && i + 1 < source.length) i += 1;
        value += source[i];
        i += 1;
      }
      if (i >= source.length) throw new ImlError(`unterminated text in ${source}`);
      i += 1;
      tokens.push({ kind: 'literal', value });
    } else if (/[0-9]/.test(c)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(source.slice(i));
      tokens.push({ kind: 'literal', value: Number(match[0]) });
      i += match[0].length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const match = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(source.slice(i));
      tokens.push({ kind: 'name', value: match[0] });
      i += match[0].length;
    } else {
      const op = PUNCTUATION.find((p) => source.startsWith(p, i));
      if (!op) throw new ImlError(`unexpected ${c} in ${source}`);
      tokens.push({ kind: 'op', value: op });
      i += op.length;
    }
  }
  return tokens;
};

// ---- parser: precedence climbing to a small tree ----

const parse = (source) => {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const isOp = (value) => peek() && peek().kind === 'op' && peek().value === value;
  const take = (value) => {
    if (!isOp(value)) throw new ImlError(`expected ${value} in ${source}`);
    at += 1;
  };

  const binary = (next, ops) => () => {
    let left = next();
    while (peek() && peek().kind === 'op' && ops.includes(peek().value)) {
      const op = tokens[at].value;
      at += 1;
      left = { kind: 'binary', op, left, right: next() };
    }
    return left;
  };

  const primary = () => {
    const token = peek();
    if (!token) throw new ImlError(`unexpected end of ${source}`);
    if (token.kind === 'literal') {
      at += 1;
      return { kind: 'literal', value: token.value };
    }
    if (isOp('(')) {
      take('(');
      const inner = expression();
      take(')');
      return inner;
    }
    if (token.kind === 'name') {
      at += 1;
      if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
      if (token.value === 'null') return { kind: 'literal', value: null };
      if (isOp('(')) {
        take('(');
        const args = [];
        if (!isOp(')')) {
          args.push(expression());
          while (isOp(',') || isOp(';')) {
            at += 1;
            args.push(expression());
          }
        }
        take(')');
        return { kind: 'call', name: token.value, args };
      }
      let node = { kind: 'variable', name: token.value };
      for (;;) {
        if (isOp('.')) {
          at += 1;
          const key = tokens[at];
          if (!key || (key.kind !== 'name' && !(key.kind === 'literal' && typeof key.value === 'number'))) throw new ImlError(`expected a key after . in ${source}`);
          at += 1;
          node = { kind: 'member', object: node, key: { kind: 'literal', value: String(key.value) } };
        } else if (isOp('[')) {
          take('[');
          const key = expression();
          take(']');
          node = { kind: 'member', object: node, key };
        } else {
          return node;
        }
      }
    }
    throw new ImlError(`unexpected ${token.value} in ${source}`);
  };

  const unary = () => {
    if (isOp('!')) {
      at += 1;
      return { kind: 'not', operand: unary() };
    }
    if (isOp('-')) {
      at += 1;
      return { kind: 'negate', operand: unary() };
    }
    return primary();
  };
  const multiplicative = binary(unary, ['*', '/']);
  const additive = binary(multiplicative, ['+', '-']);
  const comparison = binary(additive, ['<', '<=', '>', '>=']);
  const equality = binary(comparison, ['=', '==', '!=']);
  const and = binary(equality, ['&&']);
  const expression = binary(and, ['||']);

  const tree = expression();
  if (at !== tokens.length) throw new ImlError(`unexpected ${tokens[at].value} in ${source}`);
  return tree;
};

// ---- values and functions ----

/** Make's "empty": nothing, null, empty text or an empty array. */
const isEmpty = (value) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** A path (`a.b.c`) in an object; Make's arrays count from 1 in paths. */
const getPath = (object, path) =>
  String(path)
    .split('.')
    .reduce((value, key) => {
      if (value === undefined || value === null) return undefined;
      if (Array.isArray(value) && /^[0-9]+$/.test(key)) return value[Number(key) - 1];
      return value[key];
    }, object);

const asText = (value) => {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
};

const collection = (value, name) => {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new ImlError(`${name}: not a collection`);
  return value;
};

const FUNCTIONS = {
  if: (condition, yes, no) => (condition ? yes : no),
  ifempty: (value, fallback) => (isEmpty(value) ? fallback : value),
  switch: (value, ...cases) => {
    for (let i = 0; i + 1 < cases.length; i += 2) if (cases[i] === value) return cases[i + 1];
    return cases.length % 2 === 1 ? cases[cases.length - 1] : undefined;
  },
  omit: (value, ...keys) => Object.fromEntries(Object.entries(collection(value, 'omit')).filter(([key]) => !keys.includes(key))),
  pick: (value, ...keys) => Object.fromEntries(Object.entries(collection(value, 'pick')).filter(([key]) => keys.includes(key))),
  get: (value, path) => getPath(value, path),
  distinct: (array, key) => {
    if (!Array.isArray(array)) return array;
    const seen = new Set();
    return array.filter((item) => {
      const mark = JSON.stringify(key === undefined ? item : getPath(item, key)) ?? 'undefined';
      if (seen.has(mark)) return false;
      seen.add(mark);
      return true;
    });
  },
  length: (value) => (Array.isArray(value) || typeof value === 'string' ? value.length : 0),
  lower: (value) => asText(value).toLowerCase(),
  upper: (value) => asText(value).toUpperCase(),
  trim: (value) => asText(value).trim(),
  join: (array, separator = ',') => (Array.isArray(array) ? array.map(asText).join(separator) : asText(array)),
  toString: (value) => asText(value),
};

const evaluateTree = (node, context) => {
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'variable':
      return context[node.name];
    case 'member': {
      const object = evaluateTree(node.object, context);
      if (object === undefined || object === null) return undefined;
      const key = evaluateTree(node.key, context);
      if (Array.isArray(object) && typeof key === 'number') return object[key - 1];
      return object[key];
    }
    case 'call': {
      const fn = FUNCTIONS[node.name];
      if (!fn) throw new ImlError(`unknown function ${node.name}`);
      return fn(...node.args.map((arg) => evaluateTree(arg, context)));
    }
    case 'not':
      return !evaluateTree(node.operand, context);
    case 'negate':
      return -evaluateTree(node.operand, context);
    case 'binary': {
      if (node.op === '&&') return evaluateTree(node.left, context) && evaluateTree(node.right, context);
      if (node.op === '||') return evaluateTree(node.left, context) || evaluateTree(node.right, context);
      const left = evaluateTree(node.left, context);
      const right = evaluateTree(node.right, context);
      switch (node.op) {
        case '+':
          return typeof left === 'number' && typeof right === 'number' ? left + right : asText(left) + asText(right);
        case '-':
          return left - right;
        case '*':
          return left * right;
        case '/':
          return left / right;
        case '=':
        case '==':
          return left === right;
        case '!=':
          return left !== right;
        case '<':
          return left < right;
        case '<=':
          return left <= right;
        case '>':
          return left > right;
        case '>=':
          return left >= right;
        default:
          throw new ImlError(`unknown operator ${node.op}`);
      }
    }
    default:
      throw new ImlError(`unknown node ${node.kind}`);
  }
};

/** Evaluates one expression (the text between `{{` and `}}`). */
const evaluate = (expression, context) => evaluateTree(parse(expression), context);

const SINGLE = /^\{\{([\s\S]*?)\}\}$/;
const ANY = /\{\{([\s\S]*?)\}\}/g;

/** A string of the app's JSON: one `{{…}}` alone keeps its value's type; mixed with text, the result is text. */
const template = (text, context) => {
  const single = SINGLE.exec(text);
  if (single && !single[1].includes('{{')) return evaluate(single[1], context);
  return text.replace(ANY, (_, expression) => asText(evaluate(expression, context)));
};

/** A whole JSON value of the app: every string in it evaluated (keys stay as written). */
const render = (value, context) => {
  if (typeof value === 'string') return template(value, context);
  if (Array.isArray(value)) return value.map((item) => render(item, context));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, render(item, context)]));
  return value;
};

/** Every `{{…}}` expression in a JSON value, with where it is (for the reference check). */
const expressionsIn = (value, where = '') => {
  if (typeof value === 'string') return [...value.matchAll(ANY)].map((match) => ({ where, expression: match[1] }));
  if (Array.isArray(value)) return value.flatMap((item, i) => expressionsIn(item, `${where}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => expressionsIn(item, where ? `${where}.${key}` : key));
  return [];
};

/** The variable paths an expression reads (`parameters.name`, `body.data.id`, …), as arrays of keys. */
const pathsIn = (expression) => {
  const paths = [];
  const walk = (node) => {
    if (!node) return;
    if (node.kind === 'variable' || node.kind === 'member') {
      const keys = [];
      let current = node;
      let plain = true;
      while (current.kind === 'member') {
        if (current.key.kind === 'literal') keys.unshift(String(current.key.value));
        else {
          plain = false;
          walk(current.key);
          keys.length = 0;
        }
        current = current.object;
      }
      if (current.kind === 'variable') paths.push(plain ? [current.name, ...keys] : [current.name]);
      else walk(current);
      return;
    }
    if (node.kind === 'call') node.args.forEach(walk);
    if (node.kind === 'binary') {
      walk(node.left);
      walk(node.right);
    }
    if (node.kind === 'not' || node.kind === 'negate') walk(node.operand);
  };
  walk(parse(expression));
  return paths;
};

module.exports = { ImlError, evaluate, template, render, expressionsIn, pathsIn, isEmpty, FUNCTIONS };
