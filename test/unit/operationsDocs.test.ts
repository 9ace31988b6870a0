import { expect } from 'chai';
import { readFileSync } from 'node:fs';

/** What operators copy from the repository's own files must work as written. */
const repoFile = (name: string): string => readFileSync(new URL(`../../../${name}`, import.meta.url), 'utf8');

describe('operations files', () => {
  it('.env.example names a MongoDB URL the host can reach (the README’s, with directConnection)', () => {
    const example = /^#?\s*MONGODB_URL=(\S+)$/m.exec(repoFile('.env.example'))?.[1];
    const readme = /MONGODB_URL='([^']+)'/.exec(repoFile('README.md'))?.[1];
    expect(readme).to.be.a('string');
    expect(example).to.equal(readme);
    expect(new URL(example!).searchParams.get('directConnection')).to.equal('true');
  });

  it('docker-compose.yml promises no MongoDB feature the code does not use', () => {
    const compose = repoFile('docker-compose.yml');
    expect(compose).not.to.match(/so that transactions|change streams are available/i);
  });
});
