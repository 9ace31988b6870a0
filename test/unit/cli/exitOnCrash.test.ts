import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import { exitOnCrash, type CrashSource } from '../../../src/startup/exitOnCrash.js';
import { captureLogger } from '../../support/captureLogger.js';

describe('exitOnCrash', () => {
  const setUp = () => {
    const source = new EventEmitter();
    const logger = captureLogger();
    const exits: number[] = [];
    exitOnCrash(source as unknown as CrashSource, logger, (code) => exits.push(code));
    return { source, logger, exits };
  };

  it('logs an unhandled rejection with its reason and exits 1', () => {
    const { source, logger, exits } = setUp();
    source.emit('unhandledRejection', new Error('connection reset'), Promise.resolve());
    expect(exits).to.deep.equal([1]);
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.msg).to.match(/nothing handled it/);
    expect(line?.obj).to.include({ kind: 'unhandledRejection' });
  });

  it('logs an uncaught exception with its origin and exits 1', () => {
    const { source, logger, exits } = setUp();
    source.emit('uncaughtException', new Error('boom'), 'uncaughtException');
    expect(exits).to.deep.equal([1]);
    expect(logger.lines.find((l) => l.level === 'error')?.obj).to.include({ kind: 'uncaughtException', origin: 'uncaughtException' });
  });
});
