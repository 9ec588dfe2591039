// /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests
// (apf_controller_debug.go): one row per priority level, queue or waiting request,
// comma-separated cells aligned like Go's tabwriter.NewWriter(w, 8, 0, 1, ' ', 0). Installed when
// APF is on (installAPI step 7). Levels in name order (upstream walks a Go map: random order).

import type { RouteTarget } from '../server/mux/container.ts';
import { FlowControl } from './controller.ts';

/** text/tabwriter with minwidth 8, padding 1: every tab-terminated cell padded to its column. */
export function tabwrite(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) {
    for (let j = 0; j < r.length - 1; j++) widths[j] = Math.max(widths[j] ?? 8, r[j]!.length + 1);
  }
  return rows
    .map((r) => r.map((cell, j) => (j < r.length - 1 ? cell.padEnd(widths[j]!) : cell)).join('') + '\n')
    .join('');
}

/** strings.Join(columns, ",\t"): the comma stays with the cell, the tab aligns. */
function row(...cells: (string | number | boolean)[]): string[] {
  return cells.map((c, i) => String(c) + (i < cells.length - 1 ? ',' : ''));
}

export function dumpPriorityLevels(fc: FlowControl): string {
  const rows = [
    row(
      'PriorityLevelName',
      'ActiveQueues',
      'IsIdle',
      'IsQuiescing',
      'WaitingRequests',
      'ExecutingRequests',
      'DispatchedRequests',
      'RejectedRequests',
      'TimedoutRequests',
      'CancelledRequests',
    ),
  ];
  for (const name of [...fc.priorityLevels.keys()].sort()) {
    const qs = fc.priorityLevels.get(name)!.queueSet;
    const idle = qs.requestsWaiting === 0 && qs.requestsExecuting === 0;
    rows.push(
      row(
        name,
        qs.activeQueueCount,
        idle,
        false,
        qs.requestsWaiting,
        qs.requestsExecuting,
        qs.dispatched,
        qs.rejected,
        qs.timedOut,
        qs.cancelled,
      ),
    );
  }
  return tabwrite(rows);
}

/** fairqueuing SeatSeconds.String(): integer part, 8 decimals, "ss". */
function seatSeconds(ss: number): string {
  const scaled = Math.round(ss * 1e8);
  const quo = Math.floor(scaled / 1e8);
  return `${quo}.${String(scaled - quo * 1e8).padStart(8, '0')}ss`;
}

/** time.RFC3339Nano in UTC: the fraction without trailing zeros. */
function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0*Z$/, 'Z');
}

function levelsByName(fc: FlowControl) {
  return [...fc.priorityLevels.keys()]
    .sort()
    .map((name) => ({ name, queues: fc.priorityLevels.get(name)!.queueSet.dump() }));
}

export function dumpQueues(fc: FlowControl): string {
  const rows = [
    row(
      'PriorityLevelName',
      'Index',
      'PendingRequests',
      'ExecutingRequests',
      'SeatsInUse',
      'NextDispatchR',
      'InitialSeatsSum',
      'MaxSeatsSum',
      'TotalWorkSum',
    ),
  ];
  for (const { name, queues } of levelsByName(fc)) {
    queues.forEach((q, i) =>
      rows.push(
        row(
          name,
          i,
          q.waiting.length,
          q.executing,
          q.seatsInUse,
          seatSeconds(q.nextDispatchR),
          q.initialSeatsSum,
          q.initialSeatsSum,
          seatSeconds(q.totalWorkSum),
        ),
      ),
    );
  }
  return tabwrite(rows);
}

/** `includeRequestDetails` (any non-empty value) adds who and what each waiting request is. */
export function dumpRequests(fc: FlowControl, includeRequestDetails: boolean): string {
  const details = ['UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'];
  // "FlowDistingsher" [sic], as upstream spells it.
  const headers = [
    'PriorityLevelName',
    'FlowSchemaName',
    'QueueIndex',
    'RequestIndexInQueue',
    'FlowDistingsher',
    'ArriveTime',
    'InitialSeats',
    'FinalSeats',
    'AdditionalLatency',
  ];
  const rows = [row(...headers, ...(includeRequestDetails ? details : []))];
  for (const { name, queues } of levelsByName(fc)) {
    queues.forEach((q, iq) =>
      q.waiting.forEach((r, ir) => {
        const cells: (string | number)[] = [
          name,
          r.fsName,
          iq,
          ir,
          r.flow?.distinguisher ?? '',
          rfc3339Nano(r.arrivedAt),
          r.seats,
          0,
          '0s',
        ];
        if (includeRequestDetails) {
          const ri = r.flow?.digest.requestInfo;
          const gv = ri?.apiGroup ? `${ri.apiGroup}/${ri.apiVersion}` : (ri?.apiVersion ?? '');
          cells.push(
            r.flow?.digest.user.name ?? '',
            ri?.verb ?? '',
            ri?.path ?? '',
            ri?.namespace ?? '',
            ri?.name ?? '',
            gv,
            ri?.resource ?? '',
            ri?.subresource ?? '',
          );
        }
        rows.push(row(...cells));
      }),
    );
  }
  return tabwrite(rows);
}

/** Installs the dump endpoints on the server's mux when it has a FlowControl. */
export function installFlowControlDebug(server: RouteTarget<{ flowControl?: FlowControl }>): void {
  const fc = server.config.flowControl;
  if (!(fc instanceof FlowControl)) return;
  const text = (body: string) => new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const mux = server.handler.nonGoRestfulMux;
  mux.unlistedHandle('/debug/api_priority_and_fairness/dump_priority_levels', () => text(dumpPriorityLevels(fc)));
  mux.unlistedHandle('/debug/api_priority_and_fairness/dump_queues', () => text(dumpQueues(fc)));
  mux.unlistedHandle('/debug/api_priority_and_fairness/dump_requests', (ctx) =>
    text(dumpRequests(fc, (ctx.url.searchParams.get('includeRequestDetails') ?? '') !== '')),
  );
}
