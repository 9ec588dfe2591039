import { test } from 'node:test';
import assert from 'node:assert/strict';
import { APIServerMetrics } from '../../src/metrics/apiserver.ts';
import { registerNodeProcessMetrics } from './process-metrics.ts';

test('Node process metrics: client_golang names, no stability prefix, idempotent', () => {
  const m = new APIServerMetrics();
  registerNodeProcessMetrics(m);
  registerNodeProcessMetrics(m);
  const text = m.registry.expose();
  assert.match(
    text,
    /^# HELP process_resident_memory_bytes Resident memory size in bytes\.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes \d+(\.\d+)?(e\+\d+)?$/m,
  );
  assert.match(text, /^# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total [\d.e+-]+$/m);
  assert.match(text, /^process_start_time_seconds [\d.e+]+$/m);
  if (process.platform === 'linux') assert.match(text, /^process_open_fds \d+$/m);
  m.reset();
  assert.match(m.registry.expose(), /^process_resident_memory_bytes /m);
});
