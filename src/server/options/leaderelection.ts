// kube-controller-manager's leader election flags (component-base/config/options
// BindLeaderElectionFlags, defaults from component-base/config/v1alpha1): the controllers that
// must run once (namespace deletion, garbage collection, service accounts) are elected through a
// coordination.k8s.io/v1 Lease when several servers share one etcd. Validation follows
// component-base/config/validation ValidateLeaderElectionConfiguration.

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import type { OptionsGroup } from './options.ts';
import { defaultLeaderElection as d } from '../leaderelection/config.ts';

const ms = 1e6;

export class LeaderElectionOptions implements OptionsGroup {
  leaderElect!: Flag<boolean>;
  leaseDuration!: Flag<number>;
  renewDeadline!: Flag<number>;
  retryPeriod!: Flag<number>;
  resourceLock!: Flag<string>;
  resourceName!: Flag<string>;
  resourceNamespace!: Flag<string>;

  addFlags(fs: FlagSet): void {
    fs.section('Leader election');
    this.leaderElect = fs.bool('leader-elect', d.leaderElect);
    this.leaseDuration = fs.duration('leader-elect-lease-duration', d.leaseDurationMs * ms);
    this.renewDeadline = fs.duration('leader-elect-renew-deadline', d.renewDeadlineMs * ms);
    this.retryPeriod = fs.duration('leader-elect-retry-period', d.retryPeriodMs * ms);
    this.resourceLock = fs.string('leader-elect-resource-lock', d.resourceLock);
    this.resourceName = fs.string('leader-elect-resource-name', d.resourceName);
    this.resourceNamespace = fs.string('leader-elect-resource-namespace', d.resourceNamespace);
  }

  validate(): string[] {
    if (!this.leaderElect.value) return [];
    const errs: string[] = [];
    const dur = (f: Flag<number>) => `${f.value / ms}ms`;
    if (this.leaseDuration.value <= 0)
      errs.push(`leaderElection.leaseDuration: Invalid value: "${dur(this.leaseDuration)}": must be greater than zero`);
    if (this.renewDeadline.value <= 0)
      errs.push(`leaderElection.renewDeadline: Invalid value: "${dur(this.renewDeadline)}": must be greater than zero`);
    if (this.retryPeriod.value <= 0)
      errs.push(`leaderElection.retryPeriod: Invalid value: "${dur(this.retryPeriod)}": must be greater than zero`);
    if (this.leaseDuration.value <= this.renewDeadline.value)
      errs.push(
        `leaderElection.leaseDuration: Invalid value: "${dur(this.leaseDuration)}": LeaseDuration must be greater than RenewDeadline`,
      );
    if (this.renewDeadline.value <= 1.2 * this.retryPeriod.value)
      errs.push(
        `leaderElection.renewDeadline: Invalid value: "${dur(this.renewDeadline)}": RenewDeadline must be greater than RetryPeriod*JitterFactor (1.2)`,
      );
    if (this.resourceLock.value !== 'leases')
      errs.push(
        `leaderElection.resourceLock: Unsupported value: "${this.resourceLock.value}": supported values: "leases"`,
      );
    if (!this.resourceName.value) errs.push('leaderElection.resourceName: Required value: resourceName is required');
    if (!this.resourceNamespace.value)
      errs.push('leaderElection.resourceNamespace: Required value: resourceNamespace is required');
    return errs;
  }

  applyTo(config: Config): void {
    config.leaderElection = {
      leaderElect: this.leaderElect.value,
      leaseDurationMs: this.leaseDuration.value / ms,
      renewDeadlineMs: this.renewDeadline.value / ms,
      retryPeriodMs: this.retryPeriod.value / ms,
      resourceLock: this.resourceLock.value,
      resourceName: this.resourceName.value,
      resourceNamespace: this.resourceNamespace.value,
    };
  }
}
