// Deadline timers for the request timeout filter (src/filters/timeout.ts), shared by every request
// of the process (upstream: one time.Timer per request in server/filters/timeout.go).
//
// A timer per request costs a Timeout object plus two list operations; for the usual long
// deadlines (60 s) a shared wheel with 100 ms slots is cheaper, and firing up to 100 ms late
// does not matter there. Short deadlines (`?timeout=50ms`) keep a precise timer. The wheel is
// used only where timers are objects (Node, Bun); on Workers and Deno a timer should
// belong to its request, so each request keeps its own.

export interface Expiring {
  expire(): void;
}

const slotMs = 100;
const wheel = new Map<number, Set<Expiring>>();
let ticker: { unref?: () => void } | number | undefined;
let wheelUsable: boolean | undefined;

function tick(): void {
  const now = Math.floor(Date.now() / slotMs);
  for (const [slot, set] of wheel) {
    // Emptied slots (every deadline cancelled) go here rather than at each cancel: requests in
    // the same 100 ms share a slot, and removing and re-adding it per request churns the Map.
    if (set.size === 0) {
      wheel.delete(slot);
      continue;
    }
    if (slot > now) continue;
    wheel.delete(slot);
    for (const e of set) e.expire();
  }
  if (wheel.size === 0 && ticker !== undefined) {
    clearInterval(ticker as Parameters<typeof clearInterval>[0]);
    ticker = undefined;
  }
}

/**
 * Calls `e.expire()` at `deadline` (ms since the epoch), up to one slot late for long deadlines;
 * returns the cancel function.
 *
 * @example
 * ```ts
 * const cancel = scheduleDeadline(Date.now() + 60_000, { expire: () => controller.abort() });
 * // … the work finished in time:
 * cancel();
 * ```
 */
export function scheduleDeadline(deadline: number, e: Expiring): () => void {
  const remaining = deadline - Date.now();
  if (remaining < 1000 || wheelUsable === false) {
    // Node's timers run on the loop's cached clock and may fire a millisecond before Date.now()
    // reaches the deadline: such a timer is armed again for the rest.
    let t: ReturnType<typeof setTimeout>;
    const fire = () => {
      const left = deadline - Date.now();
      if (left > 0) t = setTimeout(fire, left);
      else e.expire();
    };
    t = setTimeout(fire, Math.max(0, remaining));
    return () => clearTimeout(t);
  }
  const slot = Math.ceil(deadline / slotMs);
  let set = wheel.get(slot);
  if (!set) {
    set = new Set();
    wheel.set(slot, set);
  }
  set.add(e);
  if (ticker === undefined) {
    ticker = setInterval(tick, slotMs) as unknown as { unref?: () => void };
    if (wheelUsable === undefined) wheelUsable = typeof ticker === 'object' && typeof ticker.unref === 'function';
  }
  const s = set;
  // An emptied slot goes at the next tick, and the ticker stops there once no deadline is
  // pending, so an idle process can exit (and a steady stream of requests does not restart it).
  return () => s.delete(e);
}
