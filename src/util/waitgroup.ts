// SafeWaitGroup (k8s.io/apimachinery/pkg/util/waitgroup): a wait group that refuses new work
// once Wait has begun, so shutdown can drain without new requests slipping in.

export class SafeWaitGroup {
  private count = 0;
  private waiting = false;
  private waiters: (() => void)[] = [];

  /** Adds delta; throws once `wait` has been called (callers answer 503). */
  add(delta = 1): void {
    if (this.waiting && delta > 0) throw new Error('add with positive delta after Wait is forbidden');
    this.count += delta;
    if (this.count < 0) throw new Error('negative WaitGroup counter');
    if (this.count === 0) this.release();
  }

  done(): void {
    this.add(-1);
  }

  get size(): number {
    return this.count;
  }

  get isWaiting(): boolean {
    return this.waiting;
  }

  /** Stops accepting additions and resolves when the count reaches zero. */
  wait(): Promise<void> {
    this.waiting = true;
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
