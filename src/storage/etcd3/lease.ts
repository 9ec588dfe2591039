// Lease reuse for keys with a TTL (k8s.io/apiserver/pkg/storage/etcd3/lease_manager.go): one
// granted lease serves every write whose TTL it covers for a short while, so Events (TTL 1h) do
// not cost one lease each. A reused lease outlives the key's TTL by at most the reuse duration.

export const defaultLeaseReuseDurationSeconds = 60;
const leaseReuseDurationPercent = 0.05;

export class LeaseManager {
  private prevLeaseID = '';
  private prevLeaseExpiration = 0;
  private pending?: Promise<string>;
  private readonly reuseSeconds: number;
  private readonly grant: (ttlSeconds: number) => Promise<string>;
  private readonly now: () => number;

  constructor(grant: (ttlSeconds: number) => Promise<string>, reuseSeconds = defaultLeaseReuseDurationSeconds, now: () => number = Date.now) {
    this.grant = grant;
    this.reuseSeconds = reuseSeconds;
    this.now = now;
  }

  /** A lease ID (gateway string form) valid for at least `ttlSeconds`. */
  async getLease(ttlSeconds: number): Promise<string> {
    // Writes racing for a fresh lease share one grant.
    while (this.pending) await this.pending.catch(() => {});
    const now = this.now();
    const reuse = Math.min(Math.floor(ttlSeconds * leaseReuseDurationPercent), this.reuseSeconds);
    const valid = now + ttlSeconds * 1000 < this.prevLeaseExpiration;
    const sufficient = now + (ttlSeconds + reuse) * 1000 > this.prevLeaseExpiration;
    if (this.prevLeaseID && valid && sufficient) return this.prevLeaseID;
    const ttl = ttlSeconds + reuse;
    this.pending = this.grant(ttl);
    try {
      const id = await this.pending;
      this.prevLeaseID = id;
      this.prevLeaseExpiration = now + ttl * 1000;
      return id;
    } finally {
      this.pending = undefined;
    }
  }
}
