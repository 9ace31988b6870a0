import { expect } from 'chai';
import { readFileSync } from 'node:fs';

/** What operators copy from the repository's own files must work as written. */
const repoFile = (name: string): string => readFileSync(new URL(`../../../${name}`, import.meta.url), 'utf8');

describe('operations files', () => {
  it('.env.example names a MongoDB URL the host can reach (the testing guide’s, with directConnection)', () => {
    const example = /^#?\s*MONGODB_URL=(\S+)$/m.exec(repoFile('.env.example'))?.[1];
    const guide = /MONGODB_URL='([^']+)'/.exec(repoFile('docs/contributors/testing.md'))?.[1];
    expect(guide).to.be.a('string');
    expect(example).to.equal(guide);
    expect(new URL(example!).searchParams.get('directConnection')).to.equal('true');
  });

  it('docker-compose.yml promises no MongoDB feature the code does not use', () => {
    const compose = repoFile('docker-compose.yml');
    expect(compose).not.to.match(/so that transactions|change streams are available/i);
  });
});

describe('the hosted-CI integration workflow', () => {
  const workflow = () => repoFile('.github/workflows/integration.yml');
  const imagesOf = (text: string) => [...text.matchAll(/^\s*image:\s*(\S+)/gm)].map((m) => m[1]);

  it('runs the integration suites against real servers', () => {
    const text = workflow();
    expect(text).to.match(/run:\s*npm run test:integration/);
    expect(text).to.match(/EVENTSTORE_URL:\s*esdb:\/\/localhost:2113\?tls=false/);
    expect(text).to.match(/MONGODB_URL:\s*mongodb:\/\/localhost:27017\/\?directConnection=true/);
  });

  it('uses the images docker-compose.yml runs', () => {
    const compose = imagesOf(repoFile('docker-compose.yml')).filter((image) => !image!.startsWith('chronicle'));
    const text = workflow();
    // Service images, and those the steps start with docker run (each job its own servers).
    const started = [...text.matchAll(/^\s+(?:docker run [^\n]*?\s)?((?:eventstore\/eventstore|mongo):[\w.-]+)/gm)].map((m) => m[1]);
    const used = new Set([...imagesOf(text), ...started]);
    expect([...used].sort()).to.deep.equal([...compose].sort());
    expect(compose).to.have.members(['eventstore/eventstore:24.10', 'mongo:8.0']);
  });
});
