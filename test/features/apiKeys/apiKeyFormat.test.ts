import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  API_KEY_LENGTH,
  API_KEY_PREFIX,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyHint,
} from '../../../src/shared/apiKeyFormat.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const replaceAt = (s: string, i: number, c: string): string => s.slice(0, i) + c + s.slice(i + 1);

describe('API key format', () => {
  it('is chr_, 30 random base62 characters and a 6-character checksum: 40 in all', () => {
    const key = generateApiKey();
    expect(key).to.match(/^chr_[0-9A-Za-z]{36}$/);
    expect(key).to.have.length(API_KEY_LENGTH);
    expect(API_KEY_LENGTH).to.equal(40);
    expect(isWellFormedApiKey(key)).to.equal(true);
  });

  it('makes 1000 different keys, all well formed, using the whole alphabet', () => {
    const keys = Array.from({ length: 1000 }, generateApiKey);
    expect(new Set(keys).size).to.equal(1000);
    expect(keys.every(isWellFormedApiKey)).to.equal(true);
    const seen = new Set(keys.flatMap((k) => [...k.slice(4, 34)]));
    expect(seen.size).to.equal(62);
  });

  it('draws the random characters without bias (each about 1/62 of 30,000 draws)', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 1000; i++) for (const c of generateApiKey().slice(4, 34)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // Expected 483.9 each; a modulo-256 bias would put the first 8 characters near 1.23× the rest.
    const first8 = [...BASE62.slice(0, 8)].reduce((sum, c) => sum + (counts.get(c) ?? 0), 0) / 8;
    const rest = [...BASE62.slice(8)].reduce((sum, c) => sum + (counts.get(c) ?? 0), 0) / 54;
    expect(first8 / rest).to.be.within(0.9, 1.1);
  });

  it('catches any changed character (random part or checksum) with the checksum', () => {
    const key = generateApiKey();
    for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
      for (const c of BASE62) {
        if (c === key[i]) continue;
        expect(isWellFormedApiKey(replaceAt(key, i, c)), `${i}:${c}`).to.equal(false);
      }
    }
  });

  it('catches two swapped neighbouring characters', () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length - 1; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      expect(isWellFormedApiKey(swapped)).to.equal(false);
    }
  });

  it('refuses a wrong prefix, length or alphabet', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`chx_${key.slice(4)}`)).to.equal(false);
    expect(isWellFormedApiKey(`CHR_${key.slice(4)}`)).to.equal(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).to.equal(false);
    expect(isWellFormedApiKey(`${key}0`)).to.equal(false);
    expect(isWellFormedApiKey(replaceAt(key, 10, '-'))).to.equal(false);
    expect(isWellFormedApiKey(replaceAt(key, 10, 'é'))).to.equal(false);
    expect(isWellFormedApiKey('')).to.equal(false);
    expect(isWellFormedApiKey(`Bearer ${key}`)).to.equal(false);
  });

  it('hashes with SHA-256 (hex) and hints with the prefix and the last 4 characters', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).to.equal(createHash('sha256').update(key).digest('hex')).and.to.match(/^[0-9a-f]{64}$/);
    expect(keyHint(key)).to.equal(`chr_...${key.slice(-4)}`);
  });
});
