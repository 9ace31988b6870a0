import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../../../src/config.js';
import { loadTlsFiles } from '../../../src/ops/tlsFiles.js';
import { tempDir } from '../../support/tempStore.js';

/** The committed test-only certificate (test/fixtures/tls), found from dist/test/unit/ops. */
const FIXTURES = fileURLToPath(new URL('../../../../test/fixtures/tls/', import.meta.url));
const CERT = join(FIXTURES, 'cert.pem');
const KEY = join(FIXTURES, 'key.pem');

const problemsOf = (files: { certFile: string; keyFile: string }): readonly string[] => {
  try {
    loadTlsFiles(files);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return expect.fail('expected a ConfigError');
};

describe('TLS files', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.dispose());

  it('loads a certificate and its key', () => {
    const { cert, key } = loadTlsFiles({ certFile: CERT, keyFile: KEY });
    expect(cert.toString()).to.contain('BEGIN CERTIFICATE');
    expect(key.toString()).to.contain('PRIVATE KEY');
  });

  it('names each variable whose file cannot be read', () => {
    const problems = problemsOf({ certFile: join(dir.path, 'missing-cert.pem'), keyFile: join(dir.path, 'missing-key.pem') });
    expect(problems).to.have.length(2);
    expect(problems[0]).to.match(/^TLS_CERT_FILE=".*missing-cert\.pem" cannot be read \(ENOENT\)$/);
    expect(problems[1]).to.match(/^TLS_KEY_FILE=".*missing-key\.pem" cannot be read \(ENOENT\)$/);
  });

  it('refuses files that are not PEM, naming the variable', () => {
    const junk = join(dir.path, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n');
    expect(problemsOf({ certFile: junk, keyFile: KEY })).to.deep.equal([`TLS_CERT_FILE=${JSON.stringify(junk)} is not a PEM certificate`]);
    expect(problemsOf({ certFile: CERT, keyFile: junk })).to.deep.equal([
      `TLS_KEY_FILE=${JSON.stringify(junk)} is not an unencrypted PEM private key`,
    ]);
    // The certificate given as the key: a PEM file, but no key.
    expect(problemsOf({ certFile: CERT, keyFile: CERT })[0]).to.match(/^TLS_KEY_FILE=.* is not an unencrypted PEM private key$/);
  });

  it('refuses a key that does not belong to the certificate', () => {
    const other = join(FIXTURES, 'other-key.pem');
    expect(problemsOf({ certFile: CERT, keyFile: other })).to.deep.equal([
      `TLS_KEY_FILE=${JSON.stringify(other)} is not the private key of TLS_CERT_FILE's certificate`,
    ]);
  });
});
