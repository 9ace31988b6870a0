import { expect } from 'chai';
import { PassThrough } from 'node:stream';
import { createLogger, prettyDestination, prettyLine, writesPretty } from '../../../src/logging.js';

const written = (stream: PassThrough): string => {
  const chunks: Buffer[] = [];
  let chunk: Buffer | null;
  while ((chunk = stream.read() as Buffer | null) !== null) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
};

describe('readable log lines (LOG_FORMAT)', () => {
  it('writes a pino line as time, level, message, then its fields', () => {
    const line = prettyLine(
      JSON.stringify({ level: 40, time: '2026-12-07T22:17:04.426Z', service: 'chronicle', secretsInTheClear: 0, path: '/a b', nested: { x: 1 }, msg: 'in the clear' }),
      false,
    );
    expect(line).to.equal('22:17:04.426 WARN  in the clear  secretsInTheClear=0 path="/a b" nested={"x":1}');
  });

  it('puts an error stack on the lines below, indented', () => {
    const line = prettyLine(
      JSON.stringify({ level: 50, time: '2026-12-07T22:17:04.426Z', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (a.js:1:1)' }, msg: 'failed' }),
      false,
    );
    expect(line.split('\n')).to.deep.equal(['22:17:04.426 ERROR failed  err={"type":"Error","message":"boom"}', '    Error: boom', '        at f (a.js:1:1)']);
  });

  it('colours the level on a terminal, and passes what is not JSON as it is', () => {
    expect(prettyLine(JSON.stringify({ level: 30, time: '2026-12-07T22:17:04.426Z', msg: 'x' }), true)).to.equal('22:17:04.426 \u001b[32mINFO \u001b[0m x');
    expect(prettyLine('not json', true)).to.equal('not json');
  });

  it('redacts secrets in readable lines as in JSON ones', () => {
    const out = new PassThrough();
    const logger = createLogger('info', prettyDestination(out, false) as unknown as NodeJS.WritableStream);
    logger.info({ authorization: 'Bearer chr_secret', headers: { cookie: 'chronicle_console=abc' }, path: '/contacts' }, 'request');
    const line = written(out);
    expect(line).to.match(/INFO {2}request {2}authorization=\[redacted\] headers=\{"cookie":"\[redacted\]"\} path=\/contacts\n$/);
    expect(line).not.to.contain('chr_secret');
    expect(line).not.to.contain('abc');
  });

  it('is readable for pretty, and for auto only on a terminal', () => {
    expect(writesPretty('auto', true)).to.equal(true);
    expect(writesPretty('auto', false)).to.equal(false);
    expect(writesPretty('auto', undefined)).to.equal(false);
    expect(writesPretty('json', true)).to.equal(false);
    expect(writesPretty('pretty', false)).to.equal(true);
  });
});
