import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry, formatFloat, exponentialBuckets } from './registry.ts';
import { APIServerMetrics } from './apiserver.ts';

test('formatFloat follows Go strconv g/-1', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [1, '1'],
    [-1, '-1'],
    [0.005, '0.005'],
    [1.25, '1.25'],
    [60, '60'],
    [100000, '100000'],
    [1e6, '1e+06'],
    [1234567, '1.234567e+06'],
    [1e9, '1e+09'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [0.1 + 0.2, '0.30000000000000004'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
    [123.456, '123.456'],
  ];
  for (const [v, s] of cases) assert.equal(formatFloat(v), s, String(v));
  assert.deepEqual(exponentialBuckets(1000, 10, 7).map(formatFloat), [
    '1000',
    '10000',
    '100000',
    '1e+06',
    '1e+07',
    '1e+08',
    '1e+09',
  ]);
});

test('text exposition: HELP/TYPE with stability, sorted families, labels and series', () => {
  const r = new Registry();
  const c = r.counter({
    name: 'b_total',
    help: 'B help\nwith "newline" \\',
    labelNames: ['zeta', 'alpha'],
    stabilityLevel: 'STABLE',
  });
  r.gauge({ name: 'a_gauge', help: 'A gauge.' });
  r.counter({ name: 'c_unused', help: 'never touched', labelNames: ['x'] });
  const h = r.histogram({
    name: 'd_seconds',
    help: 'D.',
    labelNames: ['verb'],
    buckets: [0.1, 1],
    stabilityLevel: 'BETA',
  });
  c.inc(['z2', 'a"b']);
  c.inc(['z1', 'x\ny'], 2);
  c.inc(['z1', 'a"b']);
  h.observe(['GET'], 0.05);
  h.observe(['GET'], 0.5);
  h.observe(['GET'], 5);
  assert.equal(
    r.expose(),
    [
      '# HELP a_gauge [ALPHA] A gauge.',
      '# TYPE a_gauge gauge',
      'a_gauge 0',
      '# HELP b_total [STABLE] B help\\nwith "newline" \\\\',
      '# TYPE b_total counter',
      'b_total{alpha="a\\"b",zeta="z1"} 1',
      'b_total{alpha="a\\"b",zeta="z2"} 1',
      'b_total{alpha="x\\ny",zeta="z1"} 2',
      '# HELP d_seconds [BETA] D.',
      '# TYPE d_seconds histogram',
      'd_seconds_bucket{verb="GET",le="0.1"} 1',
      'd_seconds_bucket{verb="GET",le="1"} 2',
      'd_seconds_bucket{verb="GET",le="+Inf"} 3',
      'd_seconds_sum{verb="GET"} 5.55',
      'd_seconds_count{verb="GET"} 3',
      '',
    ].join('\n'),
  );
  r.reset();
  assert.equal(r.expose(), '# HELP a_gauge [ALPHA] A gauge.\n# TYPE a_gauge gauge\na_gauge 0\n');
  assert.throws(
    () => r.counter({ name: 'a_gauge', help: '' }),
    /duplicate metrics collector registration attempted: a_gauge/,
  );
  assert.throws(() => c.inc(['only-one']), /inconsistent label cardinality/);
});

test('APIServerMetrics: per instance, upstream names, slis registry', () => {
  const a = new APIServerMetrics();
  const b = new APIServerMetrics();
  a.requestTotal.inc(['GET', '', '', '', '', '/healthz', '', '', '200']);
  a.healthcheck.set(['ping', 'healthz'], 1);
  a.healthchecksTotal.inc(['ping', 'healthz', 'success']);
  const out = a.registry.expose();
  assert.match(
    out,
    /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code\.$/m,
  );
  assert.match(
    out,
    /^apiserver_request_total\{code="200",component="",dry_run="",group="",resource="",scope="",subresource="\/healthz",verb="GET",version=""\} 1$/m,
  );
  assert.match(out, /^apiserver_tls_handshake_errors_total 0$/m);
  assert.match(out, /^apiserver_audit_event_total 0$/m);
  assert.doesNotMatch(b.registry.expose(), /apiserver_request_total/);
  assert.equal(
    a.slis.expose(),
    '# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n# TYPE kubernetes_healthcheck gauge\nkubernetes_healthcheck{name="ping",type="healthz"} 1\n' +
      '# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.\n# TYPE kubernetes_healthchecks_total counter\nkubernetes_healthchecks_total{name="ping",status="success",type="healthz"} 1\n',
  );
  a.reset();
  assert.doesNotMatch(a.registry.expose(), /apiserver_request_total/);
  assert.equal(a.slis.expose(), '');
});
