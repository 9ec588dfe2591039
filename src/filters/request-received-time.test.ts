import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withRequestReceivedTimestamp } from './request-received-time.ts';
import { withLatencyTrackers, latencyTrackersFrom, trackLatency } from './latency-trackers.ts';
import { withMuxAndDiscoveryComplete } from './mux-discovery-complete.ts';
import { LifecycleSignal } from '../server/lifecycle.ts';
import { recorder, testContext } from './testing.ts';

test('WithRequestReceivedTimestamp: stamps the context', async () => {
  const ctx = testContext('/');
  ctx.receivedTimestamp = 0;
  const before = Date.now();
  await withRequestReceivedTimestamp(recorder())(ctx);
  assert.ok(ctx.receivedTimestamp >= before && ctx.receivedTimestamp <= Date.now());
});

test('WithLatencyTrackers: trackers for everything but watches', async () => {
  const ctx = testContext('/api/v1/pods');
  await withLatencyTrackers(recorder())(ctx);
  trackLatency(ctx, 'authentication', 2);
  trackLatency(ctx, 'authentication', 3);
  assert.equal(latencyTrackersFrom(ctx)!.get('authentication'), 5);
  const w = testContext('/api/v1/pods?watch=1');
  await withLatencyTrackers(recorder())(w);
  assert.equal(latencyTrackersFrom(w), undefined);
  trackLatency(w, 'authentication', 1); // no-op
});

test('WithMuxAndDiscoveryComplete: marks requests that arrive before the signal', async () => {
  const signal = new LifecycleSignal('MuxAndDiscoveryComplete');
  const h = withMuxAndDiscoveryComplete(recorder(), { lifecycleSignals: { MuxAndDiscoveryComplete: signal } });
  const a = testContext('/');
  await h(a);
  assert.equal(a.muxAndDiscoveryIncomplete, true);
  signal.signal();
  const b = testContext('/');
  await h(b);
  assert.equal(b.muxAndDiscoveryIncomplete, undefined);
});
