import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalIP,
  compactJSON,
  encodeEvent,
  encodeEventList,
  eventString,
  formatMicroTime,
  formatRFC3339Nano,
  sourceIPs,
} from './event.ts';
import type { AuditEvent } from './types.ts';

const t0 = Date.UTC(2026, 6, 23, 12, 0, 0) * 1000;

function full(): AuditEvent {
  return {
    level: 'RequestResponse',
    auditID: 'id-1',
    stage: 'ResponseComplete',
    requestURI: '/api/v1/namespaces/default/pods?a=1&b=<2>',
    verb: 'create',
    user: { username: 'alice', uid: 'u1', groups: ['g1', 'g2'], extra: { 'z.io/b': ['2'], 'a.io/a': ['1'] } },
    impersonatedUser: { username: 'bob' },
    authenticationMetadata: { impersonationConstraint: 'impersonate:user-info' },
    sourceIPs: ['1.2.3.4'],
    userAgent: 'kubectl/v1.32',
    objectRef: {
      subresource: 'status',
      resource: 'pods',
      namespace: 'default',
      name: 'p',
      uid: 'x',
      apiGroup: '',
      apiVersion: 'v1',
      resourceVersion: '7',
    },
    responseStatus: { code: 201 },
    requestObject: '{"kind":"Pod"}',
    responseObject: '{"kind":"Pod","apiVersion":"v1"}',
    requestReceivedTimestamp: t0 + 1,
    stageTimestamp: t0 + 4213,
    annotations: { 'z/k': 'v', 'a/k': 'v&' },
  };
}

test('event: every field in audit.k8s.io/v1 order, Go HTML escaping, sorted maps, MicroTime', () => {
  assert.equal(
    encodeEvent(full()),
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"RequestResponse","auditID":"id-1","stage":"ResponseComplete",' +
      '"requestURI":"/api/v1/namespaces/default/pods?a=1\\u0026b=\\u003c2\\u003e","verb":"create",' +
      '"user":{"username":"alice","uid":"u1","groups":["g1","g2"],"extra":{"a.io/a":["1"],"z.io/b":["2"]}},' +
      '"impersonatedUser":{"username":"bob"},"authenticationMetadata":{"impersonationConstraint":"impersonate:user-info"},' +
      '"sourceIPs":["1.2.3.4"],"userAgent":"kubectl/v1.32",' +
      '"objectRef":{"resource":"pods","namespace":"default","name":"p","uid":"x","apiVersion":"v1","resourceVersion":"7","subresource":"status"},' +
      '"responseStatus":{"metadata":{},"code":201},"requestObject":{"kind":"Pod"},"responseObject":{"kind":"Pod","apiVersion":"v1"},' +
      '"requestReceivedTimestamp":"2026-07-23T12:00:00.000001Z","stageTimestamp":"2026-07-23T12:00:00.004213Z",' +
      '"annotations":{"a/k":"v\\u0026","z/k":"v"}}',
  );
});

test('event: minimal event (unauthenticated user is {})', () => {
  const ev: AuditEvent = {
    level: 'Metadata',
    auditID: 'a',
    stage: 'ResponseStarted',
    requestURI: '/',
    verb: 'get',
    user: {},
    requestReceivedTimestamp: t0,
    stageTimestamp: t0,
  };
  assert.equal(
    encodeEvent(ev),
    '{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a","stage":"ResponseStarted","requestURI":"/","verb":"get","user":{},"requestReceivedTimestamp":"2026-07-23T12:00:00.000000Z","stageTimestamp":"2026-07-23T12:00:00.000000Z"}',
  );
  assert.equal(
    encodeEventList([ev, ev]),
    `{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[${encodeEvent(ev)},${encodeEvent(ev)}]}\n`,
  );
  assert.equal(encodeEventList([]), '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[]}\n');
});

test('event: legacy format', () => {
  assert.equal(
    eventString(full()),
    '2026-07-23T12:00:00.000001Z AUDIT: id="id-1" stage="ResponseComplete" ip="1.2.3.4" method="create" user="alice" groups="\\"g1\\",\\"g2\\"" as="bob" asgroups="<lookup>" user-agent="kubectl/v1.32" namespace="default" uri="/api/v1/namespaces/default/pods?a=1&b=<2>" response="201"',
  );
  const ev: AuditEvent = {
    level: 'Metadata',
    auditID: 'a',
    stage: 'RequestReceived',
    requestURI: '/x',
    verb: 'get',
    user: {},
    requestReceivedTimestamp: t0,
    stageTimestamp: t0,
  };
  assert.equal(
    eventString(ev),
    '2026-07-23T12:00:00Z AUDIT: id="a" stage="RequestReceived" ip="<unknown>" method="get" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" user-agent="" namespace="<none>" uri="/x" response="<deferred>"',
  );
});

test('event: time formats', () => {
  assert.equal(formatMicroTime(t0 + 123456), '2026-07-23T12:00:00.123456Z');
  assert.equal(formatRFC3339Nano(t0 + 120000), '2026-07-23T12:00:00.12Z');
});

test('event: compactJSON keeps strings, drops whitespace, escapes like Go', () => {
  assert.equal(
    compactJSON('{ "a" : [ 1, 2 ],\n\t"b": "x y \\" <&>" }'),
    '{"a":[1,2],"b":"x y \\" \\u003c\\u0026\\u003e"}',
  );
});

test('sourceIPs: X-Forwarded-For, X-Real-Ip, remote address, canonical forms', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  assert.deepEqual(sourceIPs(h({}), '10.0.0.1'), ['10.0.0.1']);
  assert.deepEqual(sourceIPs(h({ 'x-forwarded-for': '1.1.1.1, junk, 2001:DB8:0:0:0:0:0:1' }), '::ffff:10.0.0.1'), [
    '1.1.1.1',
    '2001:db8::1',
    '10.0.0.1',
  ]);
  assert.deepEqual(sourceIPs(h({ 'x-forwarded-for': '1.1.1.1', 'x-real-ip': '1.1.1.1' }), '1.1.1.1'), ['1.1.1.1']);
  assert.deepEqual(sourceIPs(h({ 'x-real-ip': '3.3.3.3' }), undefined), ['3.3.3.3']);
  assert.equal(canonicalIP('::'), '::');
  assert.equal(canonicalIP('1:0:0:1:0:0:0:1'), '1:0:0:1::1');
  assert.equal(canonicalIP('1:2:3:4:5:6:7:8'), '1:2:3:4:5:6:7:8');
  assert.equal(canonicalIP('::1.2.3.4'), '::102:304');
  assert.equal(canonicalIP('256.1.1.1'), undefined);
});
