import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../config.js';

export interface TlsFiles {
  readonly cert: Buffer;
  readonly key: Buffer;
}

const reason = (error: unknown): string => {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? (error instanceof Error ? error.message : String(error));
};

/**
 * Reads and checks TLS_CERT_FILE and TLS_KEY_FILE before anything else starts: a
 * missing or unreadable file, a file that is not PEM, or a key that does not
 * belong to the certificate stops start-up as a configuration error naming the
 * variable (exit code 2), never as a stack trace from the HTTPS server.
 */
export const loadTlsFiles = (files: { readonly certFile: string; readonly keyFile: string }): TlsFiles => {
  const problems: string[] = [];
  const read = (name: string, file: string): Buffer | null => {
    try {
      return readFileSync(file);
    } catch (error) {
      problems.push(`${name}=${JSON.stringify(file)} cannot be read (${reason(error)})`);
      return null;
    }
  };
  const cert = read('TLS_CERT_FILE', files.certFile);
  const key = read('TLS_KEY_FILE', files.keyFile);
  if (cert) {
    try {
      new X509Certificate(cert);
    } catch {
      problems.push(`TLS_CERT_FILE=${JSON.stringify(files.certFile)} is not a PEM certificate`);
    }
  }
  if (key) {
    try {
      createPrivateKey(key);
    } catch {
      problems.push(`TLS_KEY_FILE=${JSON.stringify(files.keyFile)} is not an unencrypted PEM private key`);
    }
  }
  if (problems.length > 0 || !cert || !key) throw new ConfigError(problems);
  try {
    createSecureContext({ cert, key });
  } catch {
    throw new ConfigError([`TLS_KEY_FILE=${JSON.stringify(files.keyFile)} is not the private key of TLS_CERT_FILE's certificate`]);
  }
  return { cert, key };
};
