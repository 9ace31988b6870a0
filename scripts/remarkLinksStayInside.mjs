// A remark plugin for `npm run docs:check`: every link of the documentation stays inside the repository
// (the project stands alone: no link to a web address either). remark-validate-links proves that a relative link resolves; a link that climbs out of
// the repository (`../../elsewhere.md`) may still resolve on one machine and be broken on every clone,
// so it is refused here, as are absolute paths and file: URLs.
import { relative, resolve, dirname, isAbsolute } from 'node:path';

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Whether `url` names a local file outside `root`, or in a way that only works on one machine. */
const problemOf = (url, fromFile, root) => {
  if (url === '' || url.startsWith('#')) return null;
  if (/^file:/i.test(url)) return 'a file: URL points at one machine, not at the repository';
  if (SCHEME.test(url) || url.startsWith('//')) return 'a web address: the documentation links only to files of the repository';
  const path = decodeURIComponent(url.split('#')[0].split('?')[0]);
  if (path.startsWith('/')) return 'an absolute path: link to the file relative to this one';
  const target = resolve(dirname(fromFile), path);
  const inside = relative(root, target);
  if (inside.startsWith('..') || isAbsolute(inside)) return 'the link leaves the repository';
  return null;
};

/** Every node of a markdown tree, depth first. */
function* nodesOf(node) {
  yield node;
  for (const child of node.children ?? []) yield* nodesOf(child);
}

const LINKS = new Set(['link', 'image', 'definition']);

/** @param {{root?: string}} [options] */
export default function remarkLinksStayInside(options = {}) {
  const root = resolve(options.root ?? process.cwd());
  return (tree, file) => {
    if (!file.path) return;
    const fromFile = resolve(file.cwd, file.path);
    for (const node of nodesOf(tree)) {
      if (!LINKS.has(node.type)) continue;
      const problem = problemOf(node.url, fromFile, root);
      if (problem) {
        const message = file.message(`Link to \`${node.url}\`: ${problem}`, { place: node.position, ruleId: 'links-stay-inside', source: 'chronicle' });
        message.fatal = true;
      }
    }
  };
}
