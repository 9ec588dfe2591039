// Process figures the Node runtime can give, with client_golang's process collector names (no
// stability prefix, as upstream registers them raw): resident and virtual memory, CPU seconds,
// open and maximum file descriptors (Linux /proc), start time. Registered on a server's own
// registry (config.metrics), so embedded servers do not share them by accident.

import { readdirSync, readFileSync } from 'node:fs';
import type { APIServerMetrics } from '../../src/metrics/apiserver.ts';

function procLimitsMaxFds(): number | undefined {
  try {
    const m = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function openFds(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

export function registerNodeProcessMetrics(metrics: APIServerMetrics): void {
  const r = metrics.registry;
  const raw = { stabilityLevel: 'RAW' as const };
  if (!r.get('process_resident_memory_bytes')) {
    r.gaugeFunc({ name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.', ...raw }, () =>
      process.memoryUsage.rss(),
    );
  }
  if (!r.get('process_cpu_seconds_total')) {
    // A counter in client_golang; a function of the process here, so printed as one.
    r.register({
      name: 'process_cpu_seconds_total',
      help: 'Total user and system CPU time spent in seconds.',
      type: 'counter',
      stabilityLevel: 'RAW',
      collect: () => {
        const u = process.cpuUsage();
        return [[{ suffix: '', labels: [], value: (u.user + u.system) / 1e6 }]];
      },
      reset: () => {},
    });
  }
  if (!r.get('process_open_fds') && openFds() !== undefined) {
    r.gaugeFunc({ name: 'process_open_fds', help: 'Number of open file descriptors.', ...raw }, openFds);
  }
  const maxFds = procLimitsMaxFds();
  if (!r.get('process_max_fds') && maxFds !== undefined) {
    r.gaugeFunc({ name: 'process_max_fds', help: 'Maximum number of open file descriptors.', ...raw }, () => maxFds);
  }
  if (!r.get('process_virtual_memory_bytes')) {
    r.gaugeFunc({ name: 'process_virtual_memory_bytes', help: 'Virtual memory size in bytes.', ...raw }, () => {
      try {
        const m = /VmSize:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
        return m ? Number(m[1]) * 1024 : undefined;
      } catch {
        return undefined;
      }
    });
  }
}
