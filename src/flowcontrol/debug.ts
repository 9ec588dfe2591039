// /debug/api_priority_and_fairness/dump_priority_levels (pkg/util/flowcontrol/apf_filter debug
// handlers): one row per priority level, comma-separated cells aligned like Go's
// tabwriter.NewWriter(w, 8, 0, 1, ' ', 0). Installed when APF is on (installAPI step 7).

import type { GenericAPIServer } from '../server/genericapiserver.ts';
import { FlowControl } from './controller.ts';

/** text/tabwriter with minwidth 8, padding 1: every tab-terminated cell padded to its column. */
export function tabwrite(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) {
    for (let j = 0; j < r.length - 1; j++) widths[j] = Math.max(widths[j] ?? 8, r[j]!.length + 1);
  }
  return rows.map((r) => r.map((cell, j) => (j < r.length - 1 ? cell.padEnd(widths[j]!) : cell)).join('') + '\n').join('');
}

/** strings.Join(columns, ",\t"): the comma stays with the cell, the tab aligns. */
function row(...cells: (string | number | boolean)[]): string[] {
  return cells.map((c, i) => String(c) + (i < cells.length - 1 ? ',' : ''));
}

export function dumpPriorityLevels(fc: FlowControl): string {
  const rows = [
    row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests', 'DispatchedRequests', 'RejectedRequests', 'TimedoutRequests', 'CancelledRequests'),
  ];
  for (const name of [...fc.priorityLevels.keys()].sort()) {
    const qs = fc.priorityLevels.get(name)!.queueSet;
    const idle = qs.requestsWaiting === 0 && qs.requestsExecuting === 0;
    rows.push(row(name, qs.activeQueueCount, idle, false, qs.requestsWaiting, qs.requestsExecuting, qs.dispatched, qs.rejected, qs.timedOut, qs.cancelled));
  }
  return tabwrite(rows);
}

/** Installs the dump endpoint on the server's mux when it has a FlowControl. */
export function installFlowControlDebug(server: GenericAPIServer): void {
  const fc = server.config.flowControl;
  if (!(fc instanceof FlowControl)) return;
  server.handler.nonGoRestfulMux.handle('/debug/api_priority_and_fairness/dump_priority_levels', () =>
    new Response(dumpPriorityLevels(fc), { headers: { 'content-type': 'text/plain; charset=utf-8' } }),
  );
}
