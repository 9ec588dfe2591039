// The API Priority and Fairness controller (pkg/util/flowcontrol/apf_controller.go): digests
// FlowSchemas and PriorityLevelConfigurations (bootstrap + ours), classifies requests, keeps
// one QueueSet per priority level, computes concurrency limits from the server's total
// (`--max-requests-inflight` + `--max-mutating-requests-inflight`), re-balances them every 10s
// (borrowing), and keeps the adaptive Retry-After.
//
// Per server, never global. On edge runtimes it is per isolate (see docs/flowcontrol-and-metrics.md).

import type { APIServerMetrics } from '../metrics/apiserver.ts';
import type { CounterChild, GaugeChild, HistogramChild } from '../metrics/registry.ts';
import {
  mandatoryFlowSchemaNames,
  mandatoryFlowSchemas,
  mandatoryPriorityLevelNames,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from './bootstrap.ts';
import { flowDistinguisher, matchesFlowSchema, type RequestDigest } from './match.ts';
import { QueueSet, type Admission } from './queueset.ts';
import { deal, hashFlowID } from './shufflesharding.ts';
import {
  defaultFlowSchema,
  defaultPriorityLevel,
  invalidMessage,
  validateFlowSchema,
  validatePriorityLevel,
  type FlowSchema,
  type PriorityLevelConfiguration,
} from './types.ts';

/** How often concurrency limits are re-balanced among priority levels (borrowing). */
export const borrowingAdjustmentPeriod = 10_000;
const seatDemandSmoothingCoefficient = 0.977;
/** The work estimator's cap on seats per request (maximumSeatsLimit). */
export const maximumSeats = 10;
const maxRetryAfter = 32;
const handCacheLimit = 10_000;

export interface PriorityLevelState {
  readonly name: string;
  readonly uid: string;
  readonly config: PriorityLevelConfiguration;
  readonly exempt: boolean;
  nominalCL: number;
  lendableCL: number;
  minCL: number;
  maxCL: number;
  currentCL: number;
  /** Per-request seat cap for this level. */
  maxSeats: number;
  queueSet: QueueSet;
  smoothedDemand: number;
  /** flow key → shuffle-sharded hand. */
  readonly hands: Map<string, number[]>;
  readonly retry: RetryAfterTracker;
}

export interface FlowSchemaState {
  readonly name: string;
  readonly uid: string;
  readonly config: FlowSchema;
  readonly priorityLevel: PriorityLevelState;
}

/** The metric series of one flow schema (and its level), cached per registry generation. */
interface FlowSeries {
  generation: number;
  dispatched: CounterChild;
  executing: GaugeChild;
  executingSeats: GaugeChild;
  waitExecuted: HistogramChild;
  waitRejected: HistogramChild;
  execution: HistogramChild;
  seats: HistogramChild;
}

/** A rejected flow-control object and why. */
export interface RejectedObject {
  kind: 'FlowSchema' | 'PriorityLevelConfiguration' | string;
  name: string;
  reason: string;
}

export interface FlowControlOptions {
  /** Our objects (from `--flowcontrol-config-file` manifests); they join and may replace suggested ones. */
  flowSchemas?: FlowSchema[];
  priorityLevels?: PriorityLevelConfiguration[];
  /** Clock (ms since epoch); tests inject one. */
  now?: () => number;
  /** Reports rejected objects (options log them). */
  onRejected?: (r: RejectedObject) => void;
  /** Optional object counts per `resource.group`, for LIST seat estimates (no storage here by default). */
  objectCount?: (group: string, resource: string) => number | undefined;
}

export interface StartOptions {
  /** serverConcurrencyLimit = max-requests-inflight + max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  /** `--request-timeout` (ms): the queue wait limit for requests without a deadline is a quarter of it. */
  requestTimeout: number;
  metrics?: APIServerMetrics;
}

/** The result of classification. */
export interface Classification {
  flowSchema: FlowSchemaState;
  priorityLevel: PriorityLevelState;
  distinguisher: string;
  digest: RequestDigest;
}

/** Per-level adaptive Retry-After (droppedRequestsTracker). */
export class RetryAfterTracker {
  retryAfter = 1;
  private history: { sec: number; n: number }[] = [];
  private updatedAt = 0;
  record(nowMs: number): number {
    const sec = Math.floor(nowMs / 1000);
    const last = this.history[this.history.length - 1];
    if (last && last.sec === sec) last.n++;
    else this.history.push({ sec, n: 1 });
    while (this.history.length && this.history[0]!.sec <= sec - maxRetryAfter) this.history.shift();
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      if (sec - this.history[i]!.sec > this.retryAfter) break;
      dropped += this.history[i]!.n;
    }
    if (sec - this.updatedAt >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(this.retryAfter * 2, maxRetryAfter);
      this.updatedAt = sec;
    } else if (dropped < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
    return this.retryAfter;
  }
}

function randomUID(): string {
  return crypto.randomUUID();
}

export class FlowControl {
  readonly priorityLevels = new Map<string, PriorityLevelState>();
  /** FlowSchemas in matching order (precedence, then name). */
  flowSchemas: FlowSchemaState[] = [];
  /** Objects we refused, with the reason (built-ins stay in force). */
  readonly rejected: RejectedObject[] = [];
  readonly now: () => number;
  private options: FlowControlOptions;
  private started = false;
  private serverCL = 0;
  private nominalCLSum = 0;
  private lastAdjust = 0;
  requestWaitLimit = 15_000;
  metrics?: APIServerMetrics;
  // apiserver_current_inflight/inqueue_requests watermarks (max over the last second).
  private readonly counts = { executing: [0, 0], waiting: [0, 0] };
  private readonly marks = { executing: [0, 0], waiting: [0, 0] };
  private markSecond = 0;
  private readonly series = new WeakMap<FlowSchemaState, FlowSeries>();

  private rejectCount = 0;
  private readonly plConfigs = new Map<string, PriorityLevelConfiguration>();
  private readonly fsConfigs = new Map<string, FlowSchema>();

  constructor(options: FlowControlOptions = {}) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.digestObjects();
  }

  /** Where LIST seat estimates read object counts (the storage object-count tracker, once storage exists). */
  setObjectCounter(fn: FlowControlOptions['objectCount']): void {
    this.options = { ...this.options, objectCount: fn };
  }

  /** The configuration in force (after defaulting, validation and rejection). */
  get configuration(): { flowSchemas: FlowSchema[]; priorityLevels: PriorityLevelConfiguration[] } {
    return { flowSchemas: [...this.fsConfigs.values()], priorityLevels: [...this.plConfigs.values()] };
  }

  /**
   * Replaces our objects (a manifest reload), validated as at start. A level whose spec did not
   * change keeps its queues; a changed or removed level's requests finish where they are.
   * Returns the objects rejected this time.
   */
  reconfigure(objects: {
    flowSchemas?: FlowSchema[];
    priorityLevels?: PriorityLevelConfiguration[];
  }): RejectedObject[] {
    const before = this.rejectCount;
    this.options = {
      ...this.options,
      flowSchemas: objects.flowSchemas ?? [],
      priorityLevels: objects.priorityLevels ?? [],
    };
    this.plConfigs.clear();
    this.fsConfigs.clear();
    this.digestObjects();
    if (this.started) this.digest();
    const n = this.rejectCount - before;
    return n ? this.rejected.slice(-n) : [];
  }

  /** Digests the configuration and sizes every level; idempotent (the chain calls it when built). */
  start(o: StartOptions): this {
    if (this.started) return this;
    this.started = true;
    this.serverCL = Math.max(1, o.serverConcurrencyLimit);
    this.requestWaitLimit = Math.min(o.requestTimeout / 4, 60_000);
    this.metrics = o.metrics;
    this.digest();
    this.lastAdjust = this.now();
    o.metrics?.registry.onCollect(() => this.publishWatermarks(true));
    return this;
  }

  private reject(kind: string, name: string, reason: string): void {
    const r = { kind, name, reason };
    this.rejectCount++;
    this.rejected.push(r);
    // Reloads append; keep the most recent ones.
    if (this.rejected.length > 200) this.rejected.splice(0, this.rejected.length - 200);
    this.options.onRejected?.(r);
  }

  /** Our objects of one kind: defaulted, validated, never replacing a mandatory one; rejects recorded. */
  private digestOwn<T extends { metadata?: { name?: string } }>(
    kind: string,
    raws: readonly T[] | undefined,
    applyDefaults: (o: T) => T,
    validate: (o: T) => string[],
    mandatory: ReadonlySet<string>,
    into: Map<string, T>,
  ): void {
    for (const raw of raws ?? []) {
      const o = applyDefaults(structuredClone(raw));
      const name = o.metadata?.name ?? '';
      const errs = validate(o);
      if (errs.length) this.reject(kind, name, invalidMessage(kind, name, errs));
      else if (mandatory.has(name)) {
        this.reject(
          kind,
          name,
          `the mandatory ${kind} ${JSON.stringify(name)} is maintained by the apiserver and cannot be replaced`,
        );
      } else into.set(name, o);
    }
  }

  /** digestConfigObjects, part 1: bootstrap objects, then ours (defaulted and validated). */
  private digestObjects(): void {
    const pls = this.plConfigs;
    for (const pl of [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]) pls.set(pl.metadata.name, pl);
    const fss = this.fsConfigs;
    for (const fs of [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]) fss.set(fs.metadata.name, fs);

    this.digestOwn(
      'PriorityLevelConfiguration',
      this.options.priorityLevels,
      defaultPriorityLevel,
      validatePriorityLevel,
      mandatoryPriorityLevelNames,
      pls,
    );
    this.digestOwn(
      'FlowSchema',
      this.options.flowSchemas,
      defaultFlowSchema,
      validateFlowSchema,
      mandatoryFlowSchemaNames,
      fss,
    );
    for (const [name, fs] of fss) {
      const plName = fs.spec.priorityLevelConfiguration.name;
      if (!pls.has(plName)) {
        // Upstream accepts the object but marks it Dangling and never matches it.
        this.reject(
          'FlowSchema',
          name,
          `FlowSchema ${JSON.stringify(name)} references a nonexistent PriorityLevelConfiguration ${JSON.stringify(plName)} (Dangling); it is ignored`,
        );
        fss.delete(name);
      }
    }
  }

  /** digestConfigObjects, part 2: concurrency limits, queue sets, matching order. */
  private digest(): void {
    const pls = this.plConfigs;
    const fss = this.fsConfigs;
    // Concurrency: NominalCL = ceil(serverCL × shares / Σshares).
    const shares = (pl: PriorityLevelConfiguration) =>
      pl.spec.type === 'Exempt'
        ? (pl.spec.exempt?.nominalConcurrencyShares ?? 0)
        : (pl.spec.limited?.nominalConcurrencyShares ?? 30);
    const sumShares = [...pls.values()].reduce((s, pl) => s + shares(pl), 0) || 1;
    this.nominalCLSum = 0;
    const previous = new Map(this.priorityLevels);
    const previousFS = new Map(this.flowSchemas.map((f) => [f.name, f]));
    this.priorityLevels.clear();
    for (const pl of pls.values()) {
      const exempt = pl.spec.type === 'Exempt';
      const nominalCL = Math.ceil((this.serverCL * shares(pl)) / sumShares);
      this.nominalCLSum += nominalCL;
      const lendablePercent = (exempt ? pl.spec.exempt?.lendablePercent : pl.spec.limited?.lendablePercent) ?? 0;
      const lendableCL = Math.round((nominalCL * lendablePercent) / 100);
      const blp = pl.spec.limited?.borrowingLimitPercent;
      const maxCL =
        blp === undefined || blp === null ? nominalCL + this.serverCL : nominalCL + Math.round((nominalCL * blp) / 100);
      const q = pl.spec.limited?.limitResponse.type === 'Queue' ? pl.spec.limited.limitResponse.queuing! : undefined;
      const handSize = q?.handSize ?? 0;
      const maxSeats = Math.min(
        maximumSeats,
        Math.max(
          1,
          handSize > 0
            ? Math.min(Math.ceil(0.15 * nominalCL), Math.floor(nominalCL / handSize))
            : Math.ceil(0.15 * nominalCL),
        ),
      );
      const currentCL = exempt ? nominalCL : nominalCL - Math.floor(lendableCL / 2);
      const name = pl.metadata.name;
      const m = this.metrics;
      const prev = previous.get(name);
      if (prev && JSON.stringify(prev.config.spec) === JSON.stringify(pl.spec)) {
        // Unchanged level (the total of shares may have moved): keep queues, resize.
        Object.assign(prev, { nominalCL, lendableCL, minCL: nominalCL - lendableCL, maxCL, maxSeats });
        prev.currentCL = Math.min(Math.max(prev.currentCL, prev.minCL), prev.maxCL);
        if (!exempt) prev.queueSet.setConcurrencyLimit(prev.currentCL);
        this.priorityLevels.set(name, prev);
        this.publishLimits(prev);
        continue;
      }
      const state: PriorityLevelState = {
        name,
        uid: pl.metadata.uid || prev?.uid || randomUID(),
        config: pl,
        exempt,
        nominalCL,
        lendableCL,
        minCL: nominalCL - lendableCL,
        maxCL,
        currentCL,
        maxSeats,
        smoothedDemand: 0,
        hands: new Map(),
        retry: new RetryAfterTracker(),
        queueSet: new QueueSet(
          { name, queues: exempt ? -1 : (q?.queues ?? 0), handSize, queueLengthLimit: q?.queueLengthLimit ?? 0 },
          currentCL,
          this.now,
          m
            ? {
                onEnqueue: (fsName, len, seats) => {
                  m.fcCurrentInqueueRequests.inc([name, fsName]);
                  m.fcCurrentInqueueSeats.inc([name, fsName], seats);
                  m.fcRequestQueueLength.observe([name, fsName], len);
                },
                onDequeue: (fsName, seats) => {
                  m.fcCurrentInqueueRequests.dec([name, fsName]);
                  m.fcCurrentInqueueSeats.dec([name, fsName], seats);
                },
                onNoAccommodation: (fsName) => m.fcDispatchNoAccommodation.inc([name, fsName]),
              }
            : {},
        ),
      };
      this.priorityLevels.set(name, state);
      this.publishLimits(state);
    }

    const states: FlowSchemaState[] = [];
    for (const fs of fss.values()) {
      const pl = this.priorityLevels.get(fs.spec.priorityLevelConfiguration.name)!;
      states.push({
        name: fs.metadata.name,
        uid: fs.metadata.uid || previousFS.get(fs.metadata.name)?.uid || randomUID(),
        config: fs,
        priorityLevel: pl,
      });
    }
    // Levels that are gone: drop their limit gauges.
    for (const name of previous.keys()) {
      if (this.priorityLevels.has(name) || !this.metrics) continue;
      for (const g of [
        this.metrics.fcNominalLimitSeats,
        this.metrics.fcCurrentLimitSeats,
        this.metrics.fcLowerLimitSeats,
        this.metrics.fcUpperLimitSeats,
      ])
        g.delete([name]);
    }
    states.sort(
      (a, b) =>
        a.config.spec.matchingPrecedence - b.config.spec.matchingPrecedence ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    this.flowSchemas = states;
  }

  private publishLimits(pl: PriorityLevelState): void {
    const m = this.metrics;
    if (!m) return;
    m.fcNominalLimitSeats.set([pl.name], pl.nominalCL);
    m.fcCurrentLimitSeats.set([pl.name], pl.currentCL);
    m.fcLowerLimitSeats.set([pl.name], pl.minCL);
    m.fcUpperLimitSeats.set([pl.name], pl.maxCL);
  }

  /** Finds the FlowSchema (first match in precedence order; catch-all as the fallback). */
  classify(digest: RequestDigest): Classification {
    let match: FlowSchemaState | undefined;
    for (const fs of this.flowSchemas) {
      if (matchesFlowSchema(digest, fs.config)) {
        match = fs;
        break;
      }
    }
    match ??= this.flowSchemas.find((f) => f.name === 'catch-all')!;
    return {
      flowSchema: match,
      priorityLevel: match.priorityLevel,
      distinguisher: flowDistinguisher(match.config, digest),
      digest,
    };
  }

  /** Seats for a request (the work estimator, simple model): LISTs by object count when known. */
  estimateSeats(digest: RequestDigest, url: URL, pl: PriorityLevelState): number {
    const ri = digest.requestInfo;
    let seats = 1;
    if (ri.isResourceRequest && ri.verb === 'list') {
      const count = this.options.objectCount?.(ri.apiGroup, ri.resource);
      if (count !== undefined) {
        let estimated: number;
        if (ri.name !== '') estimated = 1;
        else {
          const limit = Number.parseInt(url.searchParams.get('limit') ?? '', 10);
          const selector = ri.labelSelector !== '' || ri.fieldSelector !== '';
          estimated = limit > 0 && limit < count ? (selector ? count + limit : 2 * limit) : count;
        }
        seats = Math.ceil(estimated / 100);
      }
    }
    return Math.max(1, Math.min(seats, pl.maxSeats));
  }

  private hand(c: Classification): number[] {
    const pl = c.priorityLevel;
    const qc = pl.queueSet.config;
    if (qc.queues <= 0) return [];
    const key = `${c.flowSchema.name}\u0000${c.distinguisher}`;
    let h = pl.hands.get(key);
    if (!h) {
      h = deal(hashFlowID(c.flowSchema.name, c.distinguisher), qc.queues, qc.handSize);
      if (pl.hands.size >= handCacheLimit) pl.hands.clear();
      pl.hands.set(key, h);
    }
    return h;
  }

  /**
   * Admits the request into its level (queueing if needed). `waitDeadline` is the epoch-ms
   * wait limit; `mutating` picks the request_kind of the watermark metrics.
   */
  private flowSeries(m: APIServerMetrics, fs: FlowSchemaState): FlowSeries {
    let f = this.series.get(fs);
    if (!f || f.generation !== m.registry.generation) {
      const l = [fs.priorityLevel.name, fs.name];
      f = {
        generation: m.registry.generation,
        dispatched: m.fcDispatchedRequests.with(l),
        executing: m.fcCurrentExecutingRequests.with(l),
        executingSeats: m.fcCurrentExecutingSeats.with(l),
        waitExecuted: m.fcRequestWaitDuration.with([...l, 'true']),
        waitRejected: m.fcRequestWaitDuration.with([...l, 'false']),
        execution: m.fcRequestExecution.with([...l, 'regular']),
        seats: m.fcWorkEstimatedSeats.with(l),
      };
      this.series.set(fs, f);
    }
    return f;
  }

  /**
   * Admits the request into its level (queueing if needed). `waitDeadline` is the epoch-ms
   * wait limit; `mutating` picks the request_kind of the watermark metrics. Synchronous when
   * the request is admitted or rejected at once.
   */
  admit(
    c: Classification,
    seats: number,
    waitDeadline: number,
    mutating: boolean,
    signal?: AbortSignal,
  ): Admission | Promise<Admission> {
    this.maybeAdjustBorrowing();
    const pl = c.priorityLevel;
    const m = this.metrics;
    const series = m ? this.flowSeries(m, c.flowSchema) : undefined;
    series?.seats.observe(seats);
    const kind = mutating ? 1 : 0;
    const a = pl.queueSet.startRequest(this.hand(c), seats, c.flowSchema.name, waitDeadline, signal, c);
    if (a instanceof Promise) {
      this.noteCount('waiting', kind, 1);
      return a.then((r) => {
        this.noteCount('waiting', kind, -1);
        return this.admitted(c, r, seats, kind);
      });
    }
    return this.admitted(c, a, seats, kind);
  }

  private admitted(c: Classification, a: Admission, seats: number, kind: number): Admission {
    const m = this.metrics;
    // Re-fetched: a reset may have happened while the request waited.
    const series = m ? this.flowSeries(m, c.flowSchema) : undefined;
    if (!a.admitted) {
      series?.waitRejected.observe(a.waitedMs / 1000);
      m?.fcRejectedRequests.inc([c.priorityLevel.name, c.flowSchema.name, a.reason]);
      return a;
    }
    if (series) {
      series.waitExecuted.observe(a.waitedMs / 1000);
      series.dispatched.inc();
      series.executing.inc();
      series.executingSeats.inc(seats);
    }
    this.noteCount('executing', kind, 1);
    const started = this.now();
    const inner = a.finish;
    let done = false;
    return {
      admitted: true,
      waitedMs: a.waitedMs,
      finish: () => {
        if (done) return;
        done = true;
        inner();
        this.noteCount('executing', kind, -1);
        if (series) {
          series.executing.dec();
          series.executingSeats.dec(seats);
          series.execution.observe((this.now() - started) / 1000);
        }
      },
    };
  }

  /** Records a rejection and returns the Retry-After seconds for the level. */
  recordDropped(pl: PriorityLevelState): number {
    return pl.retry.record(this.now());
  }

  private noteCount(phase: 'executing' | 'waiting', kind: number, delta: number): void {
    this.publishWatermarks(false);
    const v = (this.counts[phase][kind]! += delta);
    if (v > this.marks[phase][kind]!) this.marks[phase][kind] = v;
  }

  /** At each new second (or scrape), publish the last second's maxima. */
  private publishWatermarks(force: boolean): void {
    const m = this.metrics;
    if (!m) return;
    const sec = Math.floor(this.now() / 1000);
    if (sec === this.markSecond && !force) return;
    const rolled = sec !== this.markSecond;
    this.markSecond = sec;
    m.updateInflightRequestMetrics('executing', this.marks.executing[0]!, this.marks.executing[1]!);
    m.updateInflightRequestMetrics('waiting', this.marks.waiting[0]!, this.marks.waiting[1]!);
    if (rolled) {
      this.marks.executing = [...this.counts.executing];
      this.marks.waiting = [...this.counts.waiting];
    }
  }

  /** Every 10s: share the server's seats among limited levels by demand (fair allocation). */
  maybeAdjustBorrowing(): void {
    const now = this.now();
    if (now - this.lastAdjust < borrowingAdjustmentPeriod) return;
    this.lastAdjust = now;
    const items: { pl: PriorityLevelState; lower: number; upper: number; target: number }[] = [];
    let requiredSum = this.nominalCLSum;
    for (const pl of this.priorityLevels.values()) {
      if (pl.exempt) {
        requiredSum -= pl.nominalCL;
        continue;
      }
      const s = pl.queueSet.takeDemandStats();
      const envelope = s.avg + s.stdDev;
      pl.smoothedDemand = Math.max(
        envelope,
        seatDemandSmoothingCoefficient * pl.smoothedDemand + (1 - seatDemandSmoothingCoefficient) * envelope,
      );
      const lower = Math.max(pl.minCL, Math.min(pl.nominalCL, s.highWatermark));
      items.push({ pl, lower, upper: pl.maxCL, target: Math.max(lower, pl.smoothedDemand) });
    }
    const allocs = computeConcurrencyAllocation(requiredSum, items);
    items.forEach((it, i) => {
      const cl = Math.max(1, Math.round(allocs[i]!));
      if (cl !== it.pl.currentCL) {
        it.pl.currentCL = cl;
        it.pl.queueSet.setConcurrencyLimit(cl);
      }
      this.publishLimits(it.pl);
    });
  }
}

/**
 * computeConcurrencyAllocation: allocations alloc_i = clamp(f × target_i, lower_i, upper_i)
 * with the fair fraction f chosen so that they sum to `requiredSum` (bounds permitting).
 */
export function computeConcurrencyAllocation(
  requiredSum: number,
  items: { lower: number; upper: number; target: number }[],
): number[] {
  const sumAt = (f: number) => items.reduce((s, it) => s + Math.min(it.upper, Math.max(it.lower, f * it.target)), 0);
  const lowerSum = items.reduce((s, it) => s + it.lower, 0);
  if (lowerSum >= requiredSum) return items.map((it) => it.lower);
  const upperSum = items.reduce((s, it) => s + it.upper, 0);
  if (upperSum <= requiredSum) return items.map((it) => it.upper);
  let lo = 0;
  let hi = 1;
  while (sumAt(hi) < requiredSum && hi < 1e12) hi *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (sumAt(mid) < requiredSum) lo = mid;
    else hi = mid;
  }
  return items.map((it) => Math.min(it.upper, Math.max(it.lower, hi * it.target)));
}
