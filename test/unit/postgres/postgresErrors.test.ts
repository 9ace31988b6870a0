import { expect } from 'chai';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';
import { breaksConnection, connectionUnavailable, interruptedWrite, translatePostgresError } from '../../../src/adapters/postgres/postgresErrors.js';
import { temporaryFailureOf } from '../../../src/http/errorTable.js';

/** An error as pg raises it for a server's answer (with its SQLSTATE), or for the socket (none). */
const serverError = (code: string | null, message = 'from the server'): Error => Object.assign(new Error(message), code === null ? {} : { code });

describe('PostgreSQL errors during a failover: which pass (503 with Retry-After) and what they say', () => {
  it('given a refusal that wrote nothing (a demoted or starting primary, a rolled-back transaction, a busy lock), then it is busy: 503 STORE_BUSY, nothing changed', () => {
    for (const code of ['25006', '57P03', '40001', '40P01', '55P03', '53300']) {
      const translated = translatePostgresError(serverError(code));
      expect(translated, code).to.be.instanceOf(StoreUnavailableError);
      expect(translated, code).to.include({ reason: 'busy', retryAfterSeconds: 1 });
      const answer = temporaryFailureOf(translated)!;
      expect(answer.status).to.equal(503);
      expect(answer.options).to.deep.include({ code: 'STORE_BUSY', headers: { 'Retry-After': '1' } });
    }
  });

  it('given the connection lost (pg’s and the socket’s errors) or the session ended by the server (classes 08 and 57P), then the connection is broken; a statement’s or the caller’s own error is not', () => {
    for (const code of ['08006', '08003', '57P01', '57P02']) expect(breaksConnection(serverError(code)), code).to.equal(true);
    for (const message of ['Connection terminated unexpectedly', 'Connection terminated due to connection timeout', 'Client has encountered a connection error and is not queryable']) {
      expect(breaksConnection(serverError(null, message)), message).to.equal(true);
    }
    for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT']) expect(breaksConnection(Object.assign(new Error(`read ${code}`), { code })), code).to.equal(true);
    for (const code of ['25006', '40001', '23505', '42601', '22P02']) expect(breaksConnection(serverError(code)), code).to.equal(false);
    expect(breaksConnection(new Error('the log holds another event at position 3'))).to.equal(false);
    expect(breaksConnection(new StoreUnavailableError('busy', 1))).to.equal(false);
    expect(breaksConnection('not an error')).to.equal(false);
  });

  it('given a write whose connection broke while it ran, then its outcome is unknown: 503 STORE_INTERRUPTED with Retry-After, saying so, never a 500', () => {
    for (const code of [null, '57P01', '08006']) {
      const failed = interruptedWrite(serverError(code, code === null ? 'Connection terminated unexpectedly' : 'terminating connection due to administrator command'));
      expect(failed, String(code)).to.be.instanceOf(StoreUnavailableError);
      expect(failed).to.include({ reason: 'interrupted', retryAfterSeconds: 1 });
      const answer = temporaryFailureOf(failed)!;
      expect(answer.status).to.equal(503);
      expect(answer.options).to.deep.include({ code: 'STORE_INTERRUPTED', headers: { 'Retry-After': '1' } });
      expect(answer.message).to.match(/whether its change was made is not known/);
      expect(answer.message).not.to.match(/Nothing was changed/);
    }
    // A statement's own error stays as it is (a constraint, a mistake), and so does the caller's: not the store's unavailability.
    const own = serverError('23505');
    expect(interruptedWrite(own)).to.equal(own);
    const callers = new Error('refused by the caller');
    expect(interruptedWrite(callers)).to.equal(callers);
  });

  it('given no connection to be had (refused, reset while connecting), then nothing was sent: busy', () => {
    const failed = connectionUnavailable(serverError(null, 'connect ECONNREFUSED'));
    expect(failed).to.include({ reason: 'busy', retryAfterSeconds: 1 });
  });
});
