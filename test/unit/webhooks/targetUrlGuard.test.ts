import { expect } from 'chai';
import { checkTargetUrl, isRefusedAddress, type ResolveHost } from '../../../src/webhooks/targetUrlGuard.js';

/**
 * The target-URL guard, with an injected resolver: no test sends traffic to (or
 * even resolves) any of these hosts.
 */

/** A resolver that fails the test if called: the decision must need no DNS. */
const noDns: ResolveHost = async (host) => expect.fail(`resolved ${host}, but no lookup was expected`);

/** A resolver answering from a table; unknown names do not resolve. */
const fakeDns =
  (table: Record<string, string[]>): ResolveHost =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };

const refused = async (url: string, resolve: ResolveHost = noDns): Promise<string> => {
  const result = await checkTargetUrl(url, { allowPrivate: false, resolve });
  if (result.ok) return expect.fail(`${url} was accepted`);
  return result.reason;
};

const accepted = async (url: string, resolve: ResolveHost = noDns): Promise<URL> => {
  const result = await checkTargetUrl(url, { allowPrivate: false, resolve });
  if (!result.ok) return expect.fail(`${url} was refused: ${result.reason}`);
  return result.url;
};

describe('target-URL guard', () => {
  describe('refuses, without any lookup,', () => {
    const cases: Record<string, readonly string[]> = {
      'localhost by name': ['http://localhost/', 'https://LOCALHOST./hook', 'http://api.localhost:8080/', 'http://localhost:3000/x'],
      'IPv4 loopback in every spelling': [
        'http://127.0.0.1/',
        'http://127.1/',
        'http://127.0.1/',
        'http://0x7f.0.0.1/',
        'http://0x7f000001/',
        'http://2130706433/',
        'http://017700000001/',
        'http://0177.0.0.1/',
        'http://127.0.0.1./',
        'http://%31%32%37.0.0.1/',
        'http://127.255.255.254:8443/x',
      ],
      'IPv6 loopback, mapped, translated, IPv4-compatible, NAT64 and 6to4 forms': [
        'http://[::1]/',
        'http://[0:0:0:0:0:0:0:1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:7f00:1]/',
        'http://[0:0:0:0:0:ffff:127.0.0.1]/',
        'http://[::ffff:0:7f00:1]/',
        'http://[::127.0.0.1]/',
        'http://[::7f00:1]/',
        'http://[64:ff9b::127.0.0.1]/',
        'http://[64:ff9b::7f00:1]/',
        'http://[64:ff9b::10.0.0.1]/',
        'http://[64:ff9b:1::a00:1]/',
        'http://[2002:7f00:1::]/',
        'http://[2002:a00:1::1]/',
        'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/',
      ],
      'private networks (RFC 1918, fc00::/7)': [
        'http://10.0.0.1/',
        'http://10.255.255.255/',
        'http://172.16.0.1/',
        'http://172.31.255.254/',
        'http://192.168.1.1/',
        'http://0xc0a80101/',
        'http://[::ffff:192.168.1.1]/',
        'http://[fc00::1]/',
        'http://[fd12:3456:789a::1]/',
      ],
      'link-local': ['http://169.254.1.1/', 'http://[fe80::1]/', 'http://[febf::1]/'],
      'shared address space (100.64/10)': ['http://100.64.0.1/', 'http://100.127.255.254/', 'http://100.100.100.200/'],
      unspecified: ['http://0.0.0.0/', 'http://0/', 'http://0.1.2.3/', 'http://[::]/', 'http://[::ffff:0.0.0.0]/'],
      multicast: ['http://224.0.0.1/', 'http://239.255.255.250/', 'http://[ff02::1]/', 'http://[ff05::2]/'],
      broadcast: ['http://255.255.255.255/', 'http://4294967295/'],
      'cloud metadata': [
        'http://169.254.169.254/latest/meta-data/',
        'http://2852039166/',
        'http://0xa9.0xfe.0xa9.0xfe/',
        'http://[::ffff:169.254.169.254]/',
        'http://[fd00:ec2::254]/',
        'http://metadata.google.internal/computeMetadata/v1/',
        'http://METADATA.GOOGLE.INTERNAL./',
        'http://metadata/',
        'http://metadata.goog/',
        'http://anything.internal/',
      ],
      'reserved and documentation ranges': [
        'http://240.0.0.1/',
        'http://192.0.2.10/',
        'http://198.18.0.1/',
        'http://192.0.0.192/',
        'http://[2001:db8::1]/',
        'http://[100::1]/',
      ],
    };
    for (const [what, urls] of Object.entries(cases)) {
      it(what, async () => {
        for (const url of urls) {
          expect(await refused(url), url).to.match(/must point to a public address/);
        }
      });
    }
  });

  describe('accepts public addresses', () => {
    it('as IP literals, without any lookup', async () => {
      for (const url of [
        'https://93.184.215.14/hook',
        'http://8.8.8.8:8080/x',
        'https://[2606:4700:4700::1111]/x',
        'https://[::ffff:8.8.8.8]/x',
        'https://[64:ff9b::8.8.8.8]/x',
        'https://[2002:808:808::1]/x',
        'http://100.63.255.255/',
        'http://100.128.0.0/',
        'http://172.32.0.1/',
        'http://11.0.0.1/',
      ]) {
        await accepted(url);
      }
    });

    it('by host name when every address it resolves to is public, in canonical form', async () => {
      const url = await accepted(
        'HTTPS://Hooks.Example.COM/chronicle?x=1',
        fakeDns({ 'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
      );
      expect(url.href).to.equal('https://hooks.example.com/chronicle?x=1');
    });

    it('looks up the host name as the URL parser canonicalised it (IDN in punycode)', async () => {
      const asked: string[] = [];
      await accepted('https://bücher.example/x', async (host) => {
        asked.push(host);
        return ['93.184.215.14'];
      });
      expect(asked).to.deep.equal(['xn--bcher-kva.example']);
    });
  });

  describe('refuses a host name', () => {
    it('when ANY of its addresses is refused (a public and a private one)', async () => {
      const dns = fakeDns({
        'mixed.example.com': ['93.184.215.14', '10.0.0.5'],
        'v6.example.com': ['93.184.215.14', '::1'],
        'mapped.example.com': ['::ffff:169.254.169.254'],
        'rebind.example.com': ['127.0.0.1'],
      });
      for (const host of ['mixed.example.com', 'v6.example.com', 'mapped.example.com', 'rebind.example.com']) {
        const reason = await refused(`https://${host}/x`, dns);
        expect(reason, host).to.match(/must point to a public address/);
        // The reason tells nothing about internal DNS.
        expect(reason, host).not.to.match(/10\.0\.0\.5|::1|169\.254|127\.0\.0\.1/);
      }
    });

    it('that does not resolve, resolves to nothing, or takes too long', async () => {
      expect(await refused('https://nowhere.example.com/x', fakeDns({}))).to.equal('could not resolve the host nowhere.example.com');
      expect(await refused('https://empty.example.com/x', fakeDns({ 'empty.example.com': [] }))).to.match(/could not resolve/);
      const hanging: ResolveHost = () => new Promise(() => undefined);
      const result = await checkTargetUrl('https://slow.example.com/', { allowPrivate: false, resolve: hanging, resolveTimeoutMs: 20 });
      expect(result).to.deep.equal({ ok: false, reason: 'could not resolve the host slow.example.com' });
    });
  });

  describe('refuses, whatever the setting,', () => {
    const badUrls: Record<string, string> = {
      'ftp://hooks.example.com/x': 'must be an http or https URL',
      'file:///etc/passwd': 'must be an http or https URL',
      'javascript:alert(1)': 'must be an http or https URL',
      'gopher://127.0.0.1:6379/_': 'must be an http or https URL',
      'hooks.example.com/x': 'must be an absolute http or https URL',
      'http://': 'must be an absolute http or https URL',
      'not a url': 'must be an absolute http or https URL',
      'https://user:secret@hooks.example.com/x': 'must not contain a user name or password',
      'https://user@hooks.example.com/x': 'must not contain a user name or password',
      'https://:secret@hooks.example.com/x': 'must not contain a user name or password',
    };
    for (const allowPrivate of [false, true]) {
      it(`anything but an http(s) URL without credentials (allowPrivate ${allowPrivate})`, async () => {
        for (const [url, reason] of Object.entries(badUrls)) {
          expect(await checkTargetUrl(url, { allowPrivate, resolve: noDns }), url).to.deep.equal({ ok: false, reason });
        }
      });
    }
  });

  describe('with allowPrivate (development, tests)', () => {
    it('passes every http(s) URL, without any lookup', async () => {
      for (const url of [
        'http://localhost:3000/hook',
        'http://127.0.0.1:8080/',
        'http://[::1]/',
        'http://10.0.0.1/',
        'http://169.254.169.254/',
        'http://metadata.google.internal/',
        'https://unresolvable.invalid/x',
      ]) {
        const result = await checkTargetUrl(url, { allowPrivate: true, resolve: noDns });
        expect(result.ok, url).to.equal(true);
      }
    });
  });

  describe('isRefusedAddress (the delivery agent’s check of the address it connects to)', () => {
    it('refuses non-public addresses in any notation, and anything that is not an address', () => {
      for (const ip of [
        '127.0.0.1',
        '127.1',
        '0x7f.0.0.1',
        '10.1.2.3',
        '169.254.169.254',
        '100.64.0.1',
        '0.0.0.0',
        '255.255.255.255',
        '224.0.0.251',
        '::1',
        '[::1]',
        '::',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::127.0.0.1',
        '64:ff9b::7f00:1',
        'fd00:ec2::254',
        'fe80::1',
        'fe80::1%eth0',
        'ff02::1',
        '',
        'localhost',
        'example.com',
        '1.2.3.4.5',
      ]) {
        expect(isRefusedAddress(ip), ip).to.equal(true);
      }
    });

    it('lets public unicast addresses pass', () => {
      for (const ip of ['8.8.8.8', '93.184.215.14', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
        expect(isRefusedAddress(ip), ip).to.equal(false);
      }
    });
  });
});
