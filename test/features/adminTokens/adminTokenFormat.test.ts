import { expect } from 'chai';
import { createHash } from 'node:crypto';
import {
  ADMIN_TOKEN_LENGTH,
  adminTokenHint,
  generateAdminToken,
  hashAdminToken,
  isWellFormedAdminToken,
} from '../../../src/shared/adminTokenFormat.js';
import { generateApiKey, isWellFormedApiKey } from '../../../src/shared/apiKeyFormat.js';

describe('Admin token format', () => {
  it('is chradm_, 30 random base62 characters and a 6-character checksum: 43 in all', () => {
    const token = generateAdminToken();
    expect(token).to.match(/^chradm_[0-9A-Za-z]{36}$/);
    expect(token).to.have.length(ADMIN_TOKEN_LENGTH);
    expect(ADMIN_TOKEN_LENGTH).to.equal(43);
    expect(isWellFormedAdminToken(token)).to.equal(true);
  });

  it('is told from an API key without a lookup, both ways', () => {
    const token = generateAdminToken();
    const key = generateApiKey();
    expect(isWellFormedApiKey(token)).to.equal(false);
    expect(isWellFormedAdminToken(key)).to.equal(false);
    // The same random part and checksum under the other prefix is still the other kind's.
    expect(isWellFormedApiKey(`chr_${token.slice('chradm_'.length)}`)).to.equal(true);
    expect(isWellFormedAdminToken(`chradm_${key.slice('chr_'.length)}`)).to.equal(true);
  });

  it('refuses a typo (any one character changed) and a truncated token', () => {
    const token = generateAdminToken();
    for (let i = 'chradm_'.length; i < token.length; i++) {
      const changed = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
      expect(isWellFormedAdminToken(changed), changed).to.equal(false);
    }
    expect(isWellFormedAdminToken(token.slice(0, -1))).to.equal(false);
  });

  it('stores the SHA-256 (hex) and shows the prefix and the last 4 characters', () => {
    const token = generateAdminToken();
    expect(hashAdminToken(token)).to.equal(createHash('sha256').update(token).digest('hex'));
    expect(adminTokenHint(token)).to.equal(`chradm_...${token.slice(-4)}`);
  });
});
