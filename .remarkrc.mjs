// `npm run docs:check`: README.md and docs/ parsed as GitHub renders them (tables, task lists), every relative
// link and anchor checked offline (remark-validate-links), and no link to a file outside the repository.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import remarkGfm from 'remark-gfm';
import remarkValidateLinks from 'remark-validate-links';
import remarkLinksStayInside from './scripts/remarkLinksStayInside.mjs';

const root = dirname(fileURLToPath(import.meta.url));

export default {
  plugins: [remarkGfm, [remarkValidateLinks, { repository: false, root }], [remarkLinksStayInside, { root }]],
};
