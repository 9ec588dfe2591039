import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerRunOptions } from './run.ts';
import { FlagSet } from './flags.ts';
import { ServerOptions, newServerOptionGroups } from './options.ts';
import { newConfig } from '../config.ts';

function parsed(args: string[]): ServerRunOptions {
  const o = new ServerRunOptions();
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return o;
}

test('ServerRunOptions: defaults match NewConfig and apply in Config units', () => {
  const o = parsed([]);
  assert.deepEqual(o.validate(), []);
  const c = newConfig();
  const fresh = newConfig();
  o.applyTo(c);
  for (const k of [
    'requestTimeout',
    'minRequestTimeout',
    'maxRequestsInFlight',
    'maxMutatingRequestsInFlight',
    'goawayChance',
    'livezGracePeriod',
    'shutdownDelayDuration',
    'shutdownSendRetryAfter',
    'shutdownWatchTerminationGracePeriod',
    'corsAllowedOrigins',
    'hstsDirectives',
  ] as const) {
    assert.deepEqual(c[k], fresh[k], k);
  }
});

test('ServerRunOptions: values apply (durations in ms, min-request-timeout in seconds)', () => {
  const o = parsed([
    '--request-timeout=1m30s',
    '--min-request-timeout=60',
    '--max-requests-inflight=10',
    '--max-mutating-requests-inflight=0',
    '--cors-allowed-origins=//a\\.com$,^https://b(:|$)',
    '--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload',
    '--goaway-chance=0.001',
    '--shutdown-send-retry-after',
    '--shutdown-delay-duration=5s',
    '--shutdown-watch-termination-grace-period=10s',
    '--livez-grace-period=500ms',
  ]);
  assert.deepEqual(o.validate(), []);
  const c = newConfig();
  o.applyTo(c);
  assert.equal(c.requestTimeout, 90_000);
  assert.equal(c.minRequestTimeout, 60);
  assert.equal(c.maxRequestsInFlight, 10);
  assert.equal(c.maxMutatingRequestsInFlight, 0);
  assert.deepEqual(c.corsAllowedOrigins, ['//a\\.com$', '^https://b(:|$)']);
  assert.deepEqual(c.hstsDirectives, ['max-age=31536000', 'includeSubDomains', 'preload']);
  assert.equal(c.goawayChance, 0.001);
  assert.equal(c.shutdownSendRetryAfter, true);
  assert.equal(c.shutdownDelayDuration, 5000);
  assert.equal(c.shutdownWatchTerminationGracePeriod, 10_000);
  assert.equal(c.livezGracePeriod, 500);
});

test('ServerRunOptions: upstream validation messages', () => {
  const o = parsed([
    '--livez-grace-period=-1s',
    '--max-requests-inflight=-1',
    '--max-mutating-requests-inflight=-2',
    '--request-timeout=-1s',
    '--goaway-chance=0.03',
    '--min-request-timeout=-1',
    '--shutdown-delay-duration=-1s',
    '--shutdown-watch-termination-grace-period=-1s',
  ]);
  assert.deepEqual(o.validate(), [
    '--livez-grace-period can not be a negative value',
    '--max-requests-inflight can not be negative value',
    '--max-mutating-requests-inflight can not be negative value',
    '--request-timeout can not be negative value',
    '--goaway-chance can not be less than 0 or greater than 0.02',
    '--min-request-timeout can not be negative value',
    '--shutdown-delay-duration can not be negative value',
    'shutdown-watch-termination-grace-period, if provided, can not be a negative value',
  ]);
  assert.deepEqual(parsed(['--goaway-chance=-0.1']).validate(), [
    '--goaway-chance can not be less than 0 or greater than 0.02',
  ]);
});

test('ServerRunOptions: HSTS and CORS validation', () => {
  const hsts = parsed(['--strict-transport-security-directives=max-age=1,foo,max-age']).validate();
  const msg =
    '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information';
  assert.deepEqual(hsts, [`[${msg}, ${msg}]`]);
  assert.deepEqual(parsed(['--strict-transport-security-directives=preload, ']).validate(), [
    'empty value in strict-transport-security-directives',
  ]);
  const cors = parsed(['--cors-allowed-origins=example.com']).validate();
  assert.equal(cors.length, 1);
  assert.match(
    cors[0]!,
    /^--cors-allowed-origins has an invalid regular expression: regular expression does not pin to start\/end of host, help: List of allowed origins for CORS/,
  );
  assert.match(
    parsed(['--cors-allowed-origins=^(a$']).validate()[0]!,
    /^--cors-allowed-origins has an invalid regular expression: /,
  );
  assert.match(
    parsed(['--cors-allowed-origins=^a$,']).validate()[0]!,
    /^empty value in --cors-allowed-origins, help: /,
  );
});

test('ServerRunOptions: registered first, in the Generic section, with upstream defaults in help', () => {
  assert.ok(newServerOptionGroups()[0] instanceof ServerRunOptions);
  const help = new ServerOptions().flags.usage('kube-apiserver');
  const generic = help.slice(help.indexOf('Generic flags:'));
  for (const [flag, def] of [
    ['--request-timeout duration', '(default 1m0s)'],
    ['--min-request-timeout int', '(default 1800)'],
    ['--max-requests-inflight int', '(default 400)'],
    ['--max-mutating-requests-inflight int', '(default 200)'],
  ] as const) {
    const i = generic.indexOf(flag);
    assert.ok(i >= 0, flag);
    assert.ok(
      generic
        .slice(i, generic.indexOf('\n      --', i + 1))
        .replace(/\s+/g, ' ')
        .includes(def),
      `${flag} ${def}`,
    );
  }
  for (const f of [
    '--cors-allowed-origins strings',
    '--strict-transport-security-directives strings',
    '--goaway-chance float',
    '--shutdown-send-retry-after',
    '--shutdown-delay-duration duration',
    '--shutdown-watch-termination-grace-period duration',
    '--livez-grace-period duration',
  ]) {
    assert.ok(generic.includes(f), f);
  }
});
