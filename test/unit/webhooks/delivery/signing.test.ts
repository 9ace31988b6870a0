import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { InvalidWebhookSecretError, webhookHeaders, webhookSignature, webhookSigner } from '../../../../src/webhooks/signing.js';

describe('Webhook signatures (Standard Webhooks)', () => {
  // The example of the Standard Webhooks specification's reference libraries.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  const timestamp = new Date(1614265330 * 1000);
  const body = '{"test": 2432232314}';

  it('signs `id.timestamp.body` with the base64-decoded secret: the reference vector', () => {
    expect(webhookSignature({ id, timestamp, body, secret })).to.equal('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('gives the three headers, the timestamp in whole unix seconds', () => {
    expect(webhookHeaders({ id, timestamp: new Date(1614265330_999), body, secret })).to.deep.equal({
      'webhook-id': id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('is verified by the standardwebhooks library, and a changed body is not', () => {
    const now = new Date();
    const headers = webhookHeaders({ id, timestamp: now, body, secret });
    expect(new Webhook(secret).verify(body, headers)).to.deep.equal({ test: 2432232314 });
    expect(() => new Webhook(secret).verify('{"test": 1}', headers)).to.throw();
  });

  it('signs many attempts with a key decoded once: the same headers as one by one', () => {
    const sign = webhookSigner(secret);
    expect(sign(id, timestamp, body)['webhook-signature']).to.equal('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const later = new Date(1614265391_000);
    expect(sign('msg_2', later, '{"n":2}')).to.deep.equal(webhookHeaders({ id: 'msg_2', timestamp: later, body: '{"n":2}', secret }));
  });

  it('refuses a secret that is not base64', () => {
    expect(() => webhookSignature({ id, timestamp, body, secret: 'whsec_not base64!' })).to.throw(InvalidWebhookSecretError);
    expect(() => webhookSignature({ id, timestamp, body, secret: 'whsec_' })).to.throw(InvalidWebhookSecretError);
    expect(() => webhookSigner('whsec_not base64!')).to.throw(InvalidWebhookSecretError);
  });
});
