// Long-running detection as upstream (k8s.io/apiserver/pkg/server/filters/longrunning.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basicLongRunningRequestCheck, kubeLongRunningRequestCheck } from './longrunning.ts';
import { testContext } from '../../filters/testing.ts';

const lr = (check: typeof kubeLongRunningRequestCheck, path: string, method = 'GET') => {
  const ctx = testContext(path, { method });
  return check(ctx.request, ctx.requestInfo!);
};

test('kube-apiserver LongRunningFunc: watch/proxy verbs, connect subresources, /debug/pprof/', () => {
  for (const p of [
    '/api/v1/pods?watch=1',
    '/api/v1/watch/pods',
    '/api/v1/proxy/nodes/n/x',
    '/api/v1/namespaces/n/pods/p/exec',
    '/api/v1/namespaces/n/pods/p/attach',
    '/api/v1/namespaces/n/pods/p/log',
    '/api/v1/namespaces/n/pods/p/portforward',
    '/api/v1/namespaces/n/services/s/proxy/x',
    '/debug/pprof/profile',
  ]) {
    assert.equal(lr(kubeLongRunningRequestCheck, p), true, p);
  }
  for (const p of [
    '/api/v1/pods',
    '/api/v1/namespaces/n/pods/p',
    '/api/v1/namespaces/n/pods/p/status',
    '/debug/pprof',
    '/apis/x/v1/log',
    '/healthz',
  ]) {
    assert.equal(lr(kubeLongRunningRequestCheck, p), false, p);
  }
});

test('generic LongRunningFunc: watch only', () => {
  const generic = basicLongRunningRequestCheck(['watch'], []);
  assert.equal(lr(generic, '/api/v1/pods?watch=true'), true);
  assert.equal(lr(generic, '/api/v1/namespaces/n/pods/p/exec'), false);
  assert.equal(lr(generic, '/api/v1/proxy/nodes/n'), false);
});
