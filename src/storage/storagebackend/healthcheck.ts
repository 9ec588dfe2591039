// The `etcd` / `etcd-readiness` checks (k8s.io/apiserver/pkg/storage/storagebackend/factory/
// etcd3.go newETCD3Check): a probe with a timeout, at most one probe every timeout/2 (a rate
// limiter with a burst of one); calls in between get the last probe's result.

export interface StorageCheckOptions {
  timeoutMs: number;
  now?: () => number;
}

/**
 * Returns the check function: resolves when the engine answered in time. Between probes it
 * answers synchronously (returns, or throws the last error): a health probe then costs no Promise.
 */
export function newStorageCheck(probe: () => Promise<void>, opts: StorageCheckOptions): () => void | Promise<void> {
  const now = opts.now ?? Date.now;
  const every = opts.timeoutMs / 2;
  let nextAllowed = 0;
  let lastError: Error | undefined = new Error('etcd client connection not yet established');
  let lastAt = -Infinity;
  const probeNow = async (start: number): Promise<void> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let err: Error | undefined;
    try {
      await Promise.race([
        probe(),
        new Promise<never>(
          (_, reject) => (timer = setTimeout(() => reject(new Error('context deadline exceeded')), opts.timeoutMs)),
        ),
      ]);
    } catch (e) {
      err = new Error(`error getting data from etcd: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      clearTimeout(timer);
    }
    // atomicLastError: only a result newer than the stored one replaces it.
    if (start >= lastAt) {
      lastAt = start;
      lastError = err;
    }
    if (err) throw err;
  };
  return () => {
    const start = now();
    if (start < nextAllowed) {
      if (lastError) throw lastError;
      return;
    }
    nextAllowed = start + every;
    return probeNow(start);
  };
}
