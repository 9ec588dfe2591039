// What the server's leader election needs (component-base's LeaderElectionConfiguration, as
// kube-controller-manager's --leader-elect flags set it).

export interface LeaderElectionSettings {
  /** `--leader-elect` (default true). */
  leaderElect: boolean;
  /** `--leader-elect-lease-duration` (15 s), ms. */
  leaseDurationMs: number;
  /** `--leader-elect-renew-deadline` (10 s), ms. */
  renewDeadlineMs: number;
  /** `--leader-elect-retry-period` (2 s), ms. */
  retryPeriodMs: number;
  /** `--leader-elect-resource-lock` (only `leases`). */
  resourceLock: string;
  /** `--leader-elect-resource-name` (`kube-controller-manager`). */
  resourceName: string;
  /** `--leader-elect-resource-namespace` (`kube-system`). */
  resourceNamespace: string;
}

export const defaultLeaderElection: LeaderElectionSettings = {
  leaderElect: true,
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  resourceLock: 'leases',
  resourceName: 'kube-controller-manager',
  resourceNamespace: 'kube-system',
};
