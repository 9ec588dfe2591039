// wait.Backoff and WithExponentialBackoff as k8s.io/apiserver/pkg/util/webhook uses them: every
// webhook (audit, token review, subject access review) retries through this one loop.

/** wait.Backoff: `steps` tries, sleeping `duration` (ms) × factor^n, plus up to `jitter` × that. */
export interface Backoff {
  /** Milliseconds before the first retry. */
  duration: number;
  factor: number;
  jitter: number;
  steps: number;
}

/** DefaultRetryBackoffWithInitialDelay (util/webhook/webhook.go): factor 1.5, jitter 0.2, 5 steps. */
export function defaultRetryBackoff(initialMs = 500): Backoff {
  return { duration: initialMs, factor: 1.5, jitter: 0.2, steps: 5 };
}

/**
 * WithExponentialBackoff with a retry predicate: runs `attempt` up to `steps` times (at least once)
 * while it throws an error `retriable` accepts; rethrows the last error.
 */
export async function withExponentialBackoff<T>(
  backoff: Backoff,
  attempt: () => Promise<T>,
  retriable: (err: unknown) => boolean = () => true,
): Promise<T> {
  let delay = backoff.duration;
  const tries = Math.max(1, backoff.steps);
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (i >= tries || !retriable(err)) throw err;
    }
    const wait = backoff.jitter > 0 ? delay + Math.random() * backoff.jitter * delay : delay;
    delay *= backoff.factor;
    await new Promise((r) => setTimeout(r, wait));
  }
}
