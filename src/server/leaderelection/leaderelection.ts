// Leader election over a coordination.k8s.io/v1 Lease, as client-go's tools/leaderelection
// (leaderelection.go, resourcelock/leaselock.go): candidates try to acquire the Lease every
// retryPeriod; the holder renews it every retryPeriod and gives up leadership when it could not
// renew for renewDeadline; a Lease whose record has not changed for its leaseDurationSeconds (as
// observed by the local clock, never comparing clocks) may be taken over. Several servers over one
// etcd run the controllers that must run once under it (src/server/controllers/controller.ts).

import { StatusError } from '../../endpoints/responsewriters/status.ts';
import type { KubeObject, Store } from '../../registry/generic/store.ts';
import type { Logger } from '../../util/logger.ts';
import type { LeaderElectionSettings } from './config.ts';

/** resourcelock.LeaderElectionRecord (times are Lease MicroTimes). */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: string;
  renewTime: string;
  leaseTransitions: number;
}

/** resourcelock.Interface: the record and an opaque version for optimistic concurrency. */
export interface ResourceLock {
  /** The current record, or undefined when the lock object does not exist. */
  get(): Promise<{ record: LeaderElectionRecord; version: string } | undefined>;
  /** Creates the lock object; false when someone else created it first. */
  create(record: LeaderElectionRecord): Promise<boolean>;
  /** Writes the record if the object is still at `version`; false on a conflict. */
  update(record: LeaderElectionRecord, version: string): Promise<boolean>;
  /** `namespace/name`, for logs. */
  describe(): string;
}

export interface LeaderElectionConfig {
  lock: ResourceLock;
  /** This candidate's holderIdentity. */
  identity: string;
  /** LeaseDuration (upstream default 15 s). */
  leaseDurationMs: number;
  /** RenewDeadline (10 s): the leader steps down when it could not renew for this long. */
  renewDeadlineMs: number;
  /** RetryPeriod (2 s): how often candidates try and the leader renews. */
  retryPeriodMs: number;
  /** Release the lock when the run is stopped (ReleaseOnCancel), so a successor need not wait. */
  releaseOnCancel?: boolean;
  onStartedLeading(signal: AbortSignal): void;
  onStoppedLeading?(): void;
  onNewLeader?(identity: string): void;
  logger?: Logger;
  /** The clock (tests). */
  now?: () => number;
}

/** metav1.MicroTime's RFC 3339 form with microseconds, as Lease times are written. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** wait.Jitter(d, 1.2): d plus up to 1.2 d, so candidates do not retry in step. */
const jitter = (ms: number) => ms + Math.random() * 1.2 * ms;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    (t as { unref?: () => void }).unref?.();
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class LeaderElector {
  private readonly c: LeaderElectionConfig;
  private readonly now: () => number;
  private observed?: LeaderElectionRecord;
  private observedRaw = '';
  private observedTime = 0;
  private observedVersion = '';
  private reportedLeader = '';

  constructor(config: LeaderElectionConfig) {
    if (config.leaseDurationMs <= config.renewDeadlineMs)
      throw new Error('leaseDuration must be greater than renewDeadline');
    if (config.renewDeadlineMs <= 1.2 * config.retryPeriodMs)
      throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
    if (!config.identity) throw new Error('Lock identity is empty');
    this.c = config;
    this.now = config.now ?? Date.now;
  }

  /** The holder last seen in the lock ('' when none). */
  getLeader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /** Whether this candidate holds a lease that has not expired by its own clock. */
  isLeader(): boolean {
    return this.observed?.holderIdentity === this.c.identity;
  }

  /**
   * Runs until `signal` aborts: acquire, lead (onStartedLeading's signal aborts when leadership is
   * lost), and after a loss go back to acquiring (client-go's Run returns there; a process that
   * must keep its controllers runs it again).
   */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!(await this.acquire(signal))) break;
      const leading = new AbortController();
      const stop = () => leading.abort();
      signal.addEventListener('abort', stop, { once: true });
      try {
        this.c.onStartedLeading(leading.signal);
      } catch (err) {
        this.c.logger?.error('leaderelection: onStartedLeading failed', { err: String(err) });
      }
      await this.renew(signal);
      signal.removeEventListener('abort', stop);
      leading.abort();
      this.c.onStoppedLeading?.();
      if (signal.aborted) {
        if (this.c.releaseOnCancel) await this.release();
        break;
      }
      this.c.logger?.info('leaderelection: lost the lease', { lock: this.c.lock.describe() });
    }
  }

  /** Tries every retryPeriod (jittered) until the lease is ours; false when stopped first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.c.logger?.info('attempting to acquire leader lease', { lock: this.c.lock.describe() }, 2);
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) {
        this.c.logger?.info('successfully acquired lease', { lock: this.c.lock.describe() }, 2);
        return true;
      }
      await sleep(jitter(this.c.retryPeriodMs), signal);
    }
    return false;
  }

  /** Renews every retryPeriod; returns when a renewal did not succeed within renewDeadline, or when stopped. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await sleep(this.c.retryPeriodMs, signal);
      if (signal.aborted) return;
      const deadline = this.now() + this.c.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted && this.now() < deadline) {
        const attempt = this.tryAcquireOrRenew();
        const timedOut = new Promise<boolean>((r) => {
          const t = setTimeout(() => r(false), Math.max(0, deadline - this.now()));
          (t as { unref?: () => void }).unref?.();
          void attempt.finally(() => clearTimeout(t));
        });
        if (await Promise.race([attempt, timedOut])) {
          renewed = true;
          break;
        }
        await sleep(Math.min(this.c.retryPeriodMs, Math.max(0, deadline - this.now())), signal);
      }
      if (!renewed && !signal.aborted) {
        this.c.logger?.error('failed to renew lease', { lock: this.c.lock.describe(), identity: this.c.identity });
        // By our clock the lease runs out after leaseDuration: do not act as the holder meanwhile.
        if (this.observed?.holderIdentity === this.c.identity) this.observed = { ...this.observed, holderIdentity: '' };
        return;
      }
    }
  }

  /** tryAcquireOrRenew: one read and at most one write of the lock. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const record: LeaderElectionRecord = {
      holderIdentity: this.c.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.c.leaseDurationMs / 1000)),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    let current: Awaited<ReturnType<ResourceLock['get']>>;
    try {
      current = await this.c.lock.get();
    } catch (err) {
      this.c.logger?.error('error retrieving resource lock', { lock: this.c.lock.describe(), err: String(err) });
      return false;
    }
    if (!current) {
      try {
        if (!(await this.c.lock.create(record))) return false;
      } catch (err) {
        this.c.logger?.error('error initially creating leader election record', { err: String(err) });
        return false;
      }
      this.setObserved(record, '', this.now());
      return true;
    }
    const raw = JSON.stringify(current.record);
    if (raw !== this.observedRaw || current.version !== this.observedVersion) {
      this.setObserved(current.record, current.version, now);
    }
    const old = current.record;
    const expires = this.observedTime + old.leaseDurationSeconds * 1000;
    if (old.holderIdentity && old.holderIdentity !== this.c.identity && expires > now) return false;
    if (old.holderIdentity === this.c.identity) {
      record.acquireTime = old.acquireTime;
      record.leaseTransitions = old.leaseTransitions;
    } else {
      record.leaseTransitions = old.leaseTransitions + 1;
    }
    try {
      if (!(await this.c.lock.update(record, current.version))) return false;
    } catch (err) {
      this.c.logger?.error('Failed to update lock', { err: String(err) });
      return false;
    }
    this.setObserved(record, '', this.now());
    return true;
  }

  private setObserved(record: LeaderElectionRecord, version: string, at: number): void {
    this.observed = record;
    this.observedRaw = JSON.stringify(record);
    this.observedVersion = version;
    this.observedTime = at;
    if (record.holderIdentity !== this.reportedLeader) {
      this.reportedLeader = record.holderIdentity;
      if (record.holderIdentity) this.c.onNewLeader?.(record.holderIdentity);
    }
  }

  /** Release: an empty holder with a 1 s lease, so the next candidate takes over at once. */
  private async release(): Promise<void> {
    if (!this.isLeader()) return;
    try {
      const current = await this.c.lock.get();
      if (!current || current.record.holderIdentity !== this.c.identity) return;
      const now = microTime(this.now());
      await this.c.lock.update(
        {
          holderIdentity: '',
          leaseDurationSeconds: 1,
          acquireTime: now,
          renewTime: now,
          leaseTransitions: current.record.leaseTransitions,
        },
        current.version,
      );
    } catch (err) {
      this.c.logger?.error('Failed to release lock', { err: String(err) });
    }
  }
}

/** resourcelock.LeaseLock over the registry's Lease store. */
export function leaseLock(leases: Store, namespace: string, name: string): ResourceLock {
  const toRecord = (lease: KubeObject): LeaderElectionRecord => {
    const s = (lease.spec ?? {}) as Partial<Record<keyof LeaderElectionRecord, unknown>>;
    return {
      holderIdentity: typeof s.holderIdentity === 'string' ? s.holderIdentity : '',
      leaseDurationSeconds: typeof s.leaseDurationSeconds === 'number' ? s.leaseDurationSeconds : 0,
      acquireTime: typeof s.acquireTime === 'string' ? s.acquireTime : '',
      renewTime: typeof s.renewTime === 'string' ? s.renewTime : '',
      leaseTransitions: typeof s.leaseTransitions === 'number' ? s.leaseTransitions : 0,
    };
  };
  const object = (record: LeaderElectionRecord, resourceVersion?: string): KubeObject => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace, ...(resourceVersion ? { resourceVersion } : {}) },
    spec: { ...record },
  });
  const reason = (err: unknown) => (err instanceof StatusError ? err.status.reason : undefined);
  return {
    describe: () => `${namespace}/${name}`,
    async get() {
      try {
        const lease = await leases.get(namespace, name);
        return { record: toRecord(lease), version: lease.metadata.resourceVersion ?? '' };
      } catch (err) {
        if (reason(err) === 'NotFound') return undefined;
        throw err;
      }
    },
    async create(record) {
      try {
        await leases.create(object(record), { namespace });
        return true;
      } catch (err) {
        if (reason(err) === 'AlreadyExists') return false;
        throw err;
      }
    },
    async update(record, version) {
      try {
        await leases.update(name, object(record, version), { namespace });
        return true;
      } catch (err) {
        if (reason(err) === 'Conflict' || reason(err) === 'NotFound') return false;
        throw err;
      }
    },
  };
}

/**
 * The controllers' election (controller.ts LeaderElection) over the Lease `settings` name, as
 * kube-controller-manager's: holderIdentity is this server's id; a graceful stop releases the Lease.
 */
export function controllerLeaderElection(
  leases: Store,
  settings: LeaderElectionSettings,
  identity: string,
  logger?: Logger,
): (onStartedLeading: (signal: AbortSignal) => void, stop: AbortSignal) => Promise<void> {
  return (onStartedLeading, stop) =>
    new LeaderElector({
      lock: leaseLock(leases, settings.resourceNamespace, settings.resourceName),
      identity,
      leaseDurationMs: settings.leaseDurationMs,
      renewDeadlineMs: settings.renewDeadlineMs,
      retryPeriodMs: settings.retryPeriodMs,
      releaseOnCancel: true,
      onStartedLeading,
      onNewLeader: (id) => logger?.info('new leader elected', { lock: settings.resourceName, identity: id }),
      logger,
    }).run(stop);
}
