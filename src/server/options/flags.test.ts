import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlagSet, HelpRequested } from './flags.ts';
import { isIP } from '../../util/net.ts';

function fs() {
  const f = new FlagSet('kube-apiserver');
  f.section('Secure serving');
  const port = f.int('secure-port', 6443, 'The port on which to serve HTTPS.');
  const bind = f.ip('bind-address', '0.0.0.0', 'The IP address on which to listen.');
  const h2 = f.bool('disable-http2-serving', false, 'If true, HTTP2 serving will be disabled.');
  f.section('Generic');
  const timeout = f.duration('request-timeout', 60e9, 'Request timeout.');
  const origins = f.stringSlice('cors-allowed-origins', [], 'CORS origins.');
  const sni = f.stringArray('tls-sni-cert-key', [], 'SNI pairs.');
  const verbosity = f.add({
    name: 'v',
    shorthand: 'v',
    usage: 'log level',
    defaultValue: 0,
    typeName: 'Level',
    set: (raw) => Number(raw),
  });
  return { f, port, bind, h2, timeout, origins, sni, verbosity };
}

test('--flag=value, --flag value, --bool, --bool=false, shorthand', () => {
  const x = fs();
  const rest = x.f.parse([
    '--secure-port=8443',
    '--bind-address',
    '127.0.0.1',
    '--disable-http2-serving',
    'pos',
    '-v=4',
  ]);
  assert.equal(x.port.value, 8443);
  assert.equal(x.port.changed, true);
  assert.equal(x.bind.value, '127.0.0.1');
  assert.equal(x.h2.value, true);
  assert.equal(x.verbosity.value, 4);
  assert.deepEqual(rest, ['pos']);
  const y = fs();
  y.f.parse(['--disable-http2-serving=false', '-v', '2']);
  assert.equal(y.h2.value, false);
  assert.equal(y.verbosity.value, 2);
});

test('durations, comma lists that append after the first, repeatable arrays', () => {
  const x = fs();
  x.f.parse([
    '--request-timeout=1m30s',
    '--cors-allowed-origins=a,b',
    '--cors-allowed-origins',
    'c',
    '--tls-sni-cert-key=a.crt,a.key:x',
    '--tls-sni-cert-key=b.crt,b.key',
  ]);
  assert.equal(x.timeout.value, 90e9);
  assert.deepEqual(x.origins.value, ['a', 'b', 'c']);
  assert.deepEqual(x.sni.value, ['a.crt,a.key:x', 'b.crt,b.key']);
});

test("errors use pflag's messages", () => {
  assert.throws(() => fs().f.parse(['--nope']), { message: 'unknown flag: --nope' });
  assert.throws(() => fs().f.parse(['-x']), { message: "unknown shorthand flag: 'x' in -x" });
  assert.throws(() => fs().f.parse(['--secure-port']), { message: 'flag needs an argument: --secure-port' });
  assert.throws(() => fs().f.parse(['--secure-port=abc']), {
    message: 'invalid argument "abc" for "--secure-port" flag: strconv.ParseInt: parsing "abc": invalid syntax',
  });
  assert.throws(() => fs().f.parse(['--request-timeout=10']), {
    message: 'invalid argument "10" for "--request-timeout" flag: time: missing unit in duration "10"',
  });
  assert.throws(() => fs().f.parse(['--disable-http2-serving=maybe']), {
    message:
      'invalid argument "maybe" for "--disable-http2-serving" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
  });
  assert.throws(() => fs().f.parse(['--bind-address=foo']), {
    message: 'invalid argument "foo" for "--bind-address" flag: failed to parse IP: "foo"',
  });
  assert.throws(() => fs().f.parse(['--help']), HelpRequested);
  assert.throws(() => fs().f.parse(['-h']), HelpRequested);
});

test('underscores normalise to dashes', () => {
  const x = fs();
  x.f.parse(['--secure_port=1']);
  assert.equal(x.port.value, 1);
});

test('help is grouped in named sections with types and defaults', () => {
  const help = fs().f.usage('kube-apiserver');
  assert.match(help, /^Usage:\n  kube-apiserver \[flags\]\n\nSecure serving flags:\n\n/);
  assert.match(help, /--secure-port int +The port on which to serve HTTPS\. \(default 6443\)/);
  assert.match(help, /--request-timeout duration +Request timeout\. \(default 1m0s\)/);
  assert.match(help, /-v, --v Level +log level/);
  assert.ok(help.indexOf('Secure serving flags:') < help.indexOf('Generic flags:'));
});

test('IP parsing', () => {
  for (const ok of ['0.0.0.0', '127.0.0.1', '::', '::1', 'fe80::1', '2001:db8::8a2e:370:7334', '::ffff:10.0.0.1'])
    assert.ok(isIP(ok), ok);
  for (const bad of ['256.0.0.1', '1.2.3', 'x', ':::', '1::2::3', '']) assert.ok(!isIP(bad), bad);
});
