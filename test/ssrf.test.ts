// URL and address checks for webhook receivers. Nothing here opens a socket:
// every check runs through checkUrlSyntax / resolveSafeTarget with stub
// resolvers, so "accepted public address" cases never contact the Internet.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checkUrlSyntax,
  parseCidrList,
  type Resolver,
  resolveSafeTarget,
  UnsafeUrlError,
} from '../server/webhooks/url-guard.ts';

const NO_POLICY = { allowPrivateCidrs: [] };

/** A resolver that fails the test if it is ever asked anything. */
const mustNotResolve: Resolver = async (host) => {
  throw new Error(`resolver must not be called (asked for ${host})`);
};

const fixed =
  (answers: Record<string, string[]>): Resolver =>
  async (host) => {
    const a = answers[host];
    if (!a) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return a;
  };

type Code = UnsafeUrlError['code'];
type Row = [url: string, code: Code, note: string];

// ---- refused without DNS: syntax, scheme, credentials, IP literals --------
const SYNTAX_ROWS: Row[] = [
  // schemes
  ['ftp://example.com/hook', 'url_scheme', 'ftp'],
  ['file:///etc/passwd', 'url_scheme', 'file'],
  ['gopher://127.0.0.1:6379/_FLUSHALL', 'url_scheme', 'gopher'],
  ['javascript:alert(1)', 'url_scheme', 'javascript'],
  ['data:text/plain,hello', 'url_scheme', 'data'],
  ['ws://example.com/socket', 'url_scheme', 'websocket'],
  ['dict://127.0.0.1:11211/stat', 'url_scheme', 'dict'],
  ['blob:http://example.com/0f3c', 'url_scheme', 'blob'],
  ['mailto:ops@example.com', 'url_scheme', 'mailto'],
  // credentials
  ['http://user:pass@example.com/', 'url_credentials', 'user and password'],
  ['http://user@example.com/', 'url_credentials', 'user only'],
  ['https://:secret@example.com/', 'url_credentials', 'password only'],
  ['http://user:@example.com/', 'url_credentials', 'user with empty password'],
  ['https://example.com%40evil:x@example.com/', 'url_credentials', 'encoded @ in user'],
  // unparsable / ambiguous
  ['', 'url_invalid', 'empty'],
  ['not a url', 'url_invalid', 'no scheme'],
  ['http://', 'url_invalid', 'no host'],
  ['http://[::1/', 'url_invalid', 'unterminated IPv6'],
  ['http://999.1.1.1/', 'url_invalid', 'IPv4 octet out of range'],
  [' http://example.com/', 'url_invalid', 'leading space stripped by the parser'],
  ['http://example.com/\nhook', 'url_invalid', 'newline stripped by the parser'],
  ['http://[fe80::1%25eth0]/', 'url_invalid', 'IPv6 zone id'],
  [`http://example.com/${'a'.repeat(2100)}`, 'url_too_long', 'over 2048 characters'],
  // loopback in every IPv4 notation the URL parser canonicalises
  ['http://127.0.0.1/', 'url_private_address', 'loopback dotted quad'],
  ['http://127.255.255.254/', 'url_private_address', 'loopback end of /8'],
  ['http://2130706433/', 'url_private_address', 'loopback decimal'],
  ['http://0177.0.0.1/', 'url_private_address', 'loopback octal'],
  ['http://017700000001/', 'url_private_address', 'loopback octal 32-bit'],
  ['http://0x7f.1/', 'url_private_address', 'loopback hex short'],
  ['http://0x7f000001/', 'url_private_address', 'loopback hex 32-bit'],
  ['http://0x7f.0x0.0x0.0x1/', 'url_private_address', 'loopback hex per octet'],
  ['http://127.1/', 'url_private_address', 'loopback short form'],
  ['http://127.0.0.1./', 'url_private_address', 'loopback trailing dot'],
  ['http://%31%32%37.0.0.1/', 'url_private_address', 'loopback percent-encoded'],
  ['http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11/', 'url_private_address', 'loopback full-width'],
  ['http://localhost/', 'url_private_address', 'localhost name'],
  ['http://LOCALHOST./', 'url_private_address', 'localhost upper case, trailing dot'],
  ['http://api.localhost:8080/', 'url_private_address', 'name under .localhost'],
  // IPv6 loopback and IPv4 embedded in IPv6
  ['http://[::1]/', 'url_private_address', 'IPv6 loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', 'url_private_address', 'IPv6 loopback long form'],
  ['http://[::ffff:127.0.0.1]/', 'url_private_address', 'IPv4-mapped dotted'],
  ['http://[::ffff:7f00:1]/', 'url_private_address', 'IPv4-mapped hex'],
  ['http://[::ffff:a9fe:a9fe]/', 'url_private_address', 'IPv4-mapped metadata'],
  ['http://[::127.0.0.1]/', 'url_private_address', 'IPv4-compatible (deprecated)'],
  ['http://[::ffff:0:7f00:1]/', 'url_private_address', 'IPv4-translated (RFC 6145)'],
  ['http://[64:ff9b::7f00:1]/', 'url_private_address', 'NAT64 loopback'],
  ['http://[64:ff9b::10.0.0.1]/', 'url_private_address', 'NAT64 private'],
  ['http://[64:ff9b::a9fe:a9fe]/', 'url_private_address', 'NAT64 metadata'],
  ['http://[64:ff9b:1::808:808]/', 'url_private_address', 'NAT64 local-use prefix'],
  ['http://[2002:7f00:1::1]/', 'url_private_address', '6to4 loopback'],
  ['http://[2002:a9fe:a9fe::]/', 'url_private_address', '6to4 metadata'],
  ['http://[2002:c0a8:101::1]/', 'url_private_address', '6to4 192.168.1.1'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'url_private_address', 'Teredo client 127.0.0.1'],
  ['http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/', 'url_private_address', 'Teredo server 10.0.0.1'],
  // RFC 1918 and unique local
  ['http://10.0.0.1/', 'url_private_address', '10/8'],
  ['http://012.1/', 'url_private_address', '10/8 octal short'],
  ['http://167772161/', 'url_private_address', '10/8 decimal'],
  ['http://172.16.0.1/', 'url_private_address', '172.16/12 start'],
  ['http://172.31.255.254/', 'url_private_address', '172.16/12 end'],
  ['http://192.168.1.1/', 'url_private_address', '192.168/16'],
  ['http://0xc0a80101/', 'url_private_address', '192.168/16 hex'],
  ['http://[fc00::1]/', 'url_private_address', 'ULA fc00::/8'],
  ['http://[fd12:3456:789a::1]/', 'url_private_address', 'ULA fd00::/8'],
  // CGNAT
  ['http://100.64.0.1/', 'url_private_address', 'CGNAT start'],
  ['http://100.127.255.254/', 'url_private_address', 'CGNAT end'],
  // link-local and cloud metadata
  ['http://169.254.169.254/latest/meta-data/', 'url_private_address', 'metadata'],
  ['http://2852039166/', 'url_private_address', 'metadata decimal'],
  ['http://0xa9fea9fe/', 'url_private_address', 'metadata hex'],
  ['http://0251.0376.0251.0376/', 'url_private_address', 'metadata octal'],
  ['http://169.254.0.1/', 'url_private_address', 'link-local v4'],
  ['http://[fe80::1]/', 'url_private_address', 'link-local v6'],
  ['http://[fd00:ec2::254]/', 'url_private_address', 'AWS metadata v6'],
  // multicast, unspecified, broadcast
  ['http://224.0.0.1/', 'url_private_address', 'multicast v4'],
  ['http://239.255.255.250/', 'url_private_address', 'SSDP multicast'],
  ['http://[ff02::1]/', 'url_private_address', 'multicast v6'],
  ['http://0.0.0.0/', 'url_private_address', 'unspecified v4'],
  ['http://0/', 'url_private_address', 'unspecified short'],
  ['http://0.1.2.3/', 'url_private_address', '0.0.0.0/8'],
  ['http://[::]/', 'url_private_address', 'unspecified v6'],
  ['http://255.255.255.255/', 'url_private_address', 'broadcast'],
  // IANA reserved / special purpose
  ['http://192.0.0.8/', 'url_private_address', '192.0.0.0/24'],
  ['http://192.0.2.1/', 'url_private_address', 'TEST-NET-1'],
  ['http://198.18.0.1/', 'url_private_address', 'benchmarking 198.18/15'],
  ['http://198.19.255.1/', 'url_private_address', 'benchmarking upper half'],
  ['http://198.51.100.7/', 'url_private_address', 'TEST-NET-2'],
  ['http://203.0.113.9/', 'url_private_address', 'TEST-NET-3'],
  ['http://240.0.0.1/', 'url_private_address', '240/4 reserved'],
  ['http://250.1.2.3/', 'url_private_address', '240/4 reserved middle'],
  ['http://[2001:db8::1]/', 'url_private_address', 'IPv6 documentation'],
  ['http://[100::1]/', 'url_private_address', 'IPv6 discard-only'],
  ['http://[2001:2::1]/', 'url_private_address', 'IPv6 benchmarking'],
  ['http://[fec0::1]/', 'url_private_address', 'IPv6 site-local (deprecated)'],
  ['http://[4000::1]/', 'url_private_address', 'IPv6 outside 2000::/3'],
];

// ---- refused after resolution (stub resolver) -------------------------------
const DNS_ROWS: [url: string, answers: string[] | null, code: Code, note: string][] = [
  ['http://internal.example/', ['10.0.0.5'], 'url_private_address', 'name to private'],
  ['http://loop.example/', ['127.0.0.1'], 'url_private_address', 'name to loopback'],
  ['http://meta.example/', ['169.254.169.254'], 'url_private_address', 'name to metadata'],
  ['http://mixed.example/', ['93.184.215.14', '192.168.0.10'], 'url_private_address', 'public then private'],
  ['http://mixed6.example/', ['2606:4700::1', '::1'], 'url_private_address', 'public v6 then loopback v6'],
  ['http://mapped.example/', ['::ffff:169.254.169.254'], 'url_private_address', 'name to mapped metadata'],
  ['http://nat64.example/', ['64:ff9b::a00:1'], 'url_private_address', 'name to NAT64 private'],
  ['http://ula.example/', ['fd00:ec2::254'], 'url_private_address', 'name to AWS v6 metadata'],
  ['http://trailing.example./', ['10.1.1.1'], 'url_private_address', 'trailing-dot name to private'],
  ['http://empty.example/', [], 'url_unresolvable', 'empty answer'],
  ['http://nxdomain.example/', null, 'url_unresolvable', 'resolver error'],
  ['http://garbage.example/', ['not-an-ip'], 'url_unresolvable', 'resolver returns a non-address'],
];

function assertRefused(fn: () => unknown, code: Code, label: string): void {
  assert.throws(
    fn,
    (err: unknown) => {
      assert.ok(err instanceof UnsafeUrlError, `${label}: expected UnsafeUrlError, got ${String(err)}`);
      assert.equal(err.code, code, `${label}: ${err.reason}`);
      assert.ok(err.reason.length > 0);
      return true;
    },
    label,
  );
}

async function assertRefusedAsync(p: Promise<unknown>, code: Code, label: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof UnsafeUrlError, `${label}: expected UnsafeUrlError, got ${String(err)}`);
    assert.equal(err.code, code, `${label}: ${err.reason}`);
    return true;
  });
}

describe('refused URLs', () => {
  it('the table is at least 60 rows', () => {
    assert.ok(SYNTAX_ROWS.length + DNS_ROWS.length >= 60, String(SYNTAX_ROWS.length + DNS_ROWS.length));
  });

  for (const [url, code, note] of SYNTAX_ROWS) {
    it(`${note}: ${url.slice(0, 60)} -> ${code}`, async () => {
      assertRefused(() => checkUrlSyntax(url), code, note);
      // The delivery-time check refuses it too, before any DNS lookup.
      await assertRefusedAsync(resolveSafeTarget(url, NO_POLICY, mustNotResolve), code, note);
    });
  }

  for (const [url, answers, code, note] of DNS_ROWS) {
    it(`${note}: ${url} -> ${code}`, async () => {
      const host = new URL(url).hostname.replace(/\.$/, '');
      const resolver = fixed(answers === null ? {} : { [host]: answers });
      checkUrlSyntax(url); // a name passes the save-time syntax check ...
      await assertRefusedAsync(resolveSafeTarget(url, NO_POLICY, resolver), code, note); // ... and fails here
    });
  }
});

describe('URL parser canonicalisation (what the guard relies on)', () => {
  const cases: [string, string][] = [
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.0.0.1./', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[::127.0.0.1]/', '[::7f00:1]'],
    ['http://[64:ff9b::10.0.0.1]/', '[64:ff9b::a00:1]'],
  ];
  for (const [raw, hostname] of cases) {
    it(`${raw} -> ${hostname}`, () => assert.equal(new URL(raw).hostname, hostname));
  }
});

describe('accepted public targets (no connection is made)', () => {
  const literals: [string, string, 4 | 6][] = [
    ['http://8.8.8.8/hook', '8.8.8.8', 4],
    ['https://1.1.1.1:8443/hook?x=1', '1.1.1.1', 4],
    ['http://134744072/', '8.8.8.8', 4], // decimal notation of a public address is fine
    ['https://[2606:4700:4700::1111]/hook', '2606:4700:4700::1111', 6],
    ['http://[::ffff:8.8.8.8]/', '8.8.8.8', 4], // mapped: connect to the IPv4 address itself
    ['http://[64:ff9b::808:808]/', '64:ff9b::808:808', 6], // NAT64 of a public address
    ['http://[2002:808:808::1]/', '2002:808:808::1', 6], // 6to4 of a public address
  ];
  for (const [url, address, family] of literals) {
    it(url, async () => {
      assert.ok(checkUrlSyntax(url) instanceof URL);
      const target = await resolveSafeTarget(url, NO_POLICY, mustNotResolve);
      assert.equal(target.address, address);
      assert.equal(target.family, family);
    });
  }

  it('a public name resolved by a stub is pinned to the first checked address', async () => {
    let calls = 0;
    const resolver: Resolver = async (host) => {
      calls++;
      assert.equal(host, 'hooks.example.com');
      return ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'];
    };
    const target = await resolveSafeTarget('https://hooks.example.com./in', NO_POLICY, resolver);
    assert.equal(target.address, '93.184.215.14');
    assert.equal(target.family, 4);
    assert.equal(target.url.pathname, '/in');
    assert.equal(calls, 1);
  });

  it('a resolver answering a mapped public address is pinned to its IPv4 form', async () => {
    const target = await resolveSafeTarget('http://m.example/', NO_POLICY, fixed({ 'm.example': ['::ffff:1.1.1.1'] }));
    assert.deepEqual([target.address, target.family], ['1.1.1.1', 4]);
  });
});

describe('allowPrivateCidrs', () => {
  it('lets an allowed private literal through, and only that', async () => {
    const policy = { allowPrivateCidrs: ['127.0.0.1/32'] };
    assert.equal(checkUrlSyntax('http://127.0.0.1:3000/hook', policy).port, '3000');
    assert.equal((await resolveSafeTarget('http://127.1:3000/', policy, mustNotResolve)).address, '127.0.0.1');
    assertRefused(() => checkUrlSyntax('http://127.0.0.2/', policy), 'url_private_address', '127.0.0.2');
    assertRefused(() => checkUrlSyntax('http://169.254.169.254/', policy), 'url_private_address', 'metadata');
    assertRefused(() => checkUrlSyntax('http://127.0.0.1:3000/'), 'url_private_address', 'default policy');
  });

  it('applies to resolved names and to IPv6', async () => {
    const policy = { allowPrivateCidrs: ['10.0.0.0/8', '::1/128'] };
    const r = fixed({
      'svc.internal': ['10.1.2.3'],
      'v6.internal': ['::1'],
      'both.internal': ['10.1.2.3', '192.168.0.1'],
    });
    assert.equal((await resolveSafeTarget('http://svc.internal/', policy, r)).address, '10.1.2.3');
    assert.equal((await resolveSafeTarget('http://v6.internal/', policy, r)).family, 6);
    assert.equal((await resolveSafeTarget('http://[::1]:9/', policy, mustNotResolve)).address, '::1');
    await assertRefusedAsync(
      resolveSafeTarget('http://both.internal/', policy, r),
      'url_private_address',
      'partly allowed',
    );
  });

  it('an allowed IPv4 range also covers its IPv4-mapped form', async () => {
    const target = await resolveSafeTarget('http://[::ffff:127.0.0.1]:1/', { allowPrivateCidrs: ['127.0.0.0/8'] });
    assert.equal(target.address, '127.0.0.1');
  });

  it('localhost names are answered locally from the allowed loopback addresses', async () => {
    const t4 = await resolveSafeTarget(
      'http://localhost:3000/',
      { allowPrivateCidrs: ['127.0.0.1/32'] },
      mustNotResolve,
    );
    assert.equal(t4.address, '127.0.0.1');
    const t6 = await resolveSafeTarget('http://localhost:3000/', { allowPrivateCidrs: ['::1/128'] }, mustNotResolve);
    assert.equal(t6.address, '::1');
  });
});

describe('parseCidrList', () => {
  it('accepts an empty value and trims entries', () => {
    assert.deepEqual(parseCidrList(''), []);
    assert.deepEqual(parseCidrList(' , '), []);
    assert.deepEqual(parseCidrList(' 10.0.0.0/8 , 192.168.0.0/16,::1/128 ,fd00::/8'), [
      '10.0.0.0/8',
      '192.168.0.0/16',
      '::1/128',
      'fd00::/8',
    ]);
  });

  for (const bad of [
    'banana',
    '10.0.0.0',
    '10.0.0.0/33',
    '::1/129',
    '0x7f.1/8',
    '10/8',
    '127.0.0.1/-1',
    '1.2.3.4/8x',
  ]) {
    it(`rejects "${bad}" naming it`, () => {
      assert.throws(
        () => parseCidrList(`127.0.0.1/32,${bad}`),
        (err: Error) => err.message.includes(`"${bad}"`),
      );
    });
  }
});
