import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LeaderElectionOptions } from './leaderelection.ts';
import { FlagSet } from './flags.ts';
import { newConfig } from '../config.ts';

function parsed(args: string[]): LeaderElectionOptions {
  const o = new LeaderElectionOptions();
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return o;
}

test("LeaderElectionOptions: kube-controller-manager's defaults (15s lease, 10s renew deadline, 2s retry, Lease kube-system/kube-controller-manager)", () => {
  const o = parsed([]);
  assert.deepEqual(o.validate(), []);
  const c = newConfig();
  o.applyTo(c);
  assert.deepEqual(c.leaderElection, {
    leaderElect: true,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    resourceLock: 'leases',
    resourceName: 'kube-controller-manager',
    resourceNamespace: 'kube-system',
  });
  assert.match(c.apiServerID, /^apiserver-[0-9a-f-]{36}$/);
});

test('LeaderElectionOptions: durations parse as Go durations; invalid combinations are refused', () => {
  const o = parsed([
    '--leader-elect-lease-duration=3s',
    '--leader-elect-renew-deadline=2s',
    '--leader-elect-retry-period=500ms',
  ]);
  assert.deepEqual(o.validate(), []);
  const c = newConfig();
  o.applyTo(c);
  assert.equal(c.leaderElection!.retryPeriodMs, 500);
  assert.deepEqual(parsed(['--leader-elect-lease-duration=10s']).validate(), [
    'leaderElection.leaseDuration: Invalid value: "10000ms": LeaseDuration must be greater than RenewDeadline',
  ]);
  assert.deepEqual(parsed(['--leader-elect-resource-lock=endpoints']).validate(), [
    'leaderElection.resourceLock: Unsupported value: "endpoints": supported values: "leases"',
  ]);
  // Off: nothing to validate.
  assert.deepEqual(parsed(['--leader-elect=false', '--leader-elect-lease-duration=1s']).validate(), []);
});
