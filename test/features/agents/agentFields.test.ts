import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { AgentChannels } from '../../../src/features/agents/domain/AgentChannel.js';
import { AgentDescription } from '../../../src/features/agents/domain/AgentDescription.js';
import { AgentName } from '../../../src/features/agents/domain/AgentName.js';
import { AgentStatusInput } from '../../../src/features/agents/domain/AgentStatus.js';
import { LanguageTag } from '../../../src/features/agents/domain/LanguageTag.js';
import { formatValidationErrors } from '../../../src/shared/validationReporter.js';
import { valid } from '../apiKeys/decode.js';

const messageOf = (decoded: E.Either<t.Errors, unknown>): string => {
  if (E.isRight(decoded)) return expect.fail(`expected a refusal, got ${JSON.stringify(decoded.right)}`);
  return Object.values(formatValidationErrors(decoded.left))[0] ?? '';
};

describe('AgentName', () => {
  it('trims and refuses a blank or overlong name', () => {
    expect(valid(AgentName, '  Support bot ')).to.equal('Support bot');
    expect(E.isLeft(AgentName.decode(' '))).to.equal(true);
    expect(E.isLeft(AgentName.decode('x'.repeat(201)))).to.equal(true);
  });
});

describe('AgentDescription', () => {
  it('trims; null or empty means none', () => {
    expect(valid(AgentDescription, '  Line one\nline two\t ')).to.equal('Line one\nline two');
    expect(valid(AgentDescription, '   ')).to.equal(null);
    expect(valid(AgentDescription, null)).to.equal(null);
  });
  it('takes up to 1000 characters', () => {
    expect(valid(AgentDescription, 'd'.repeat(1000))).to.have.length(1000);
    expect(messageOf(AgentDescription.decode('d'.repeat(1001)))).to.match(/at most 1000 characters/);
  });
  it('refuses control characters other than line breaks and tabs, and non-strings', () => {
    expect(E.isLeft(AgentDescription.decode('bell\u0007'))).to.equal(true);
    expect(E.isLeft(AgentDescription.decode(7))).to.equal(true);
  });
});

describe('AgentChannels', () => {
  it('keeps a set in canonical order, without duplicates', () => {
    expect(valid(AgentChannels, ['voice', ' sms', 'whatsapp', 'sms'])).to.deep.equal(['whatsapp', 'sms', 'voice']);
    expect(valid(AgentChannels, ['webchat'])).to.deep.equal(['webchat']);
  });
  it('takes every channel of the list', () => {
    const all = ['whatsapp', 'sms', 'email', 'webchat', 'messenger', 'instagram', 'telegram', 'voice'];
    expect(valid(AgentChannels, [...all].reverse())).to.deep.equal(all);
  });
  it('refuses an empty list, unknown names (naming them) and non-lists', () => {
    expect(messageOf(AgentChannels.decode([]))).to.match(/at least one/);
    expect(messageOf(AgentChannels.decode(['sms', 'fax', 'WhatsApp']))).to.match(/unknown channel "fax", "WhatsApp"/);
    expect(E.isLeft(AgentChannels.decode('sms'))).to.equal(true);
    expect(E.isLeft(AgentChannels.decode(['sms', 3]))).to.equal(true);
  });
  it('`is` accepts only canonical sets', () => {
    expect(AgentChannels.is(['whatsapp', 'sms'])).to.equal(true);
    expect(AgentChannels.is(['sms', 'whatsapp'])).to.equal(false);
    expect(AgentChannels.is(['sms', 'sms'])).to.equal(false);
    expect(AgentChannels.is([])).to.equal(false);
  });
});

describe('LanguageTag', () => {
  it('canonicalises BCP 47 tags', () => {
    const cases: [string, string][] = [
      ['en', 'en'],
      [' EN ', 'en'],
      ['de-de', 'de-DE'],
      ['EN-us', 'en-US'],
      ['zh-hant-tw', 'zh-Hant-TW'],
      ['iw', 'he'],
      ['es-419', 'es-419'],
    ];
    for (const [input, canonical] of cases) expect(valid(LanguageTag, input), input).to.equal(canonical);
  });
  it('refuses what is not a well-formed tag', () => {
    for (const bad of ['', 'en_US', 'en-', 'english', 'German', 'x-private', 'en-US-u-ca-gregory-nu-latn-hc-h23-co-phonebk', 7]) {
      expect(messageOf(LanguageTag.decode(bad)), String(bad)).to.match(/BCP 47|string/);
    }
  });
});

describe('AgentStatusInput', () => {
  it('takes active or paused, and says so otherwise', () => {
    expect(valid(AgentStatusInput, 'paused')).to.equal('paused');
    expect(messageOf(AgentStatusInput.decode('Active'))).to.equal('must be active or paused');
  });
});
