// A small portable Prometheus registry (what k8s.io/component-base/metrics + client_golang do for
// kube-apiserver): counters, gauges and histograms with labels, text exposition format 0.0.4 with
// HELP/TYPE lines, component-base's stability prefix in HELP (`[ALPHA] `, `[STABLE] `…), and
// Reset for `DELETE /metrics`. Web APIs only; one Registry per server, nothing global.
//
// Output matches client_golang's Gather + expfmt: families sorted by name, label names sorted,
// series sorted by label values, a vector with no series prints nothing, floats as Go's
// strconv.FormatFloat(v, 'g', -1, 64).

/** `RAW`: registered without component-base (client_golang's process collector): no prefix. */
export type StabilityLevel = 'INTERNAL' | 'ALPHA' | 'BETA' | 'STABLE' | 'RAW';
export type MetricType = 'counter' | 'gauge' | 'histogram';

/** Content-Type of the text exposition format as served by kube-apiserver's /metrics. */
export const textContentType = 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores';

export interface MetricOpts {
  /** Full name (namespace_subsystem_name). */
  name: string;
  help: string;
  labelNames?: readonly string[];
  stabilityLevel?: StabilityLevel;
  /** Labels with a fixed value on every series. */
  constLabels?: Readonly<Record<string, string>>;
  /** False for constant metrics (build info) that Reset must keep. Default true. */
  resettable?: boolean;
}

export interface HistogramOpts extends MetricOpts {
  buckets: readonly number[];
}

type Labels = Readonly<Record<string, string | number>> | readonly (string | number)[];

/** A collected sample line (name suffix, sorted label pairs, value). */
export interface Sample {
  suffix: string;
  labels: [string, string][];
  value: number;
}

/** Anything the registry can print. */
export interface Collector {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly stabilityLevel: StabilityLevel;
  /** Samples grouped per series, each group already in output order. */
  collect(): Sample[][];
  reset(): void;
}

/** Go strconv.FormatFloat(v, 'g', -1, 64), plus Prometheus' spellings of the specials. */
export function formatFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  // Shortest round-trip digits (JS and Go agree on those), then strconv's 'g' rule for the
  // shortest precision: %e when the decimal exponent is < -4 or >= 6 (so 1e+06, 1.5e-05).
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-])(\d+)$/.exec(v.toExponential())!;
  const sign = m[1]!;
  const digits = m[2]! + (m[3] ?? '');
  const e = Number(m[5]) * (m[4] === '-' ? -1 : 1);
  if (e < -4 || e >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ae = Math.abs(e);
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${ae < 10 ? '0' : ''}${ae}`;
  }
  if (e >= 0) {
    const intPart = digits.length > e + 1 ? digits.slice(0, e + 1) : digits.padEnd(e + 1, '0');
    const frac = digits.length > e + 1 ? digits.slice(e + 1) : '';
    return `${sign}${intPart}${frac ? '.' + frac : ''}`;
  }
  return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
}

function escapeHelp(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function stabilityHelp(level: StabilityLevel, help: string): string {
  return level === 'RAW' ? help : `[${level}] ${help}`;
}

interface Entry<T> {
  values: string[];
  child: T;
}

abstract class Vec<T> implements Collector {
  readonly name: string;
  readonly help: string;
  abstract readonly type: MetricType;
  readonly stabilityLevel: StabilityLevel;
  readonly labelNames: readonly string[];
  readonly constLabels: [string, string][];
  protected readonly children = new Map<string, Entry<T>>();
  /** The same series by label value, position by position (see `with`). */
  private readonly trie = new Map<string, unknown>();
  /** Unlabelled metrics always print (client_golang registers the one series up front). */
  protected readonly alwaysPresent: boolean;
  /** Increments whenever series are dropped (reset, delete): callers caching children re-fetch them. */
  generation = 0;
  private readonly resettable: boolean;

  constructor(opts: MetricOpts) {
    this.name = opts.name;
    this.help = opts.help;
    this.stabilityLevel = opts.stabilityLevel ?? 'ALPHA';
    this.labelNames = opts.labelNames ?? [];
    this.constLabels = Object.entries(opts.constLabels ?? {});
    this.alwaysPresent = this.labelNames.length === 0;
    this.resettable = opts.resettable ?? true;
  }

  protected abstract newChild(): T;
  protected abstract samples(child: T, labels: [string, string][]): Sample[];

  /** The series for these label values (positional, or an object keyed by label name). */
  with(labels: Labels = []): T {
    if (!Array.isArray(labels)) return this.entry(this.values(labels)).child;
    // Hot path (every request records several series): one Map per label position, walked
    // with the values as given, so no key string is built per call.
    const n = labels.length;
    if (n !== this.labelNames.length) this.values(labels);
    if (n === 0) return this.entry([]).child;
    let node: Map<string, unknown> = this.trie;
    for (let i = 0; i < n - 1; i++) {
      const v = labels[i]!;
      const next = node.get(typeof v === 'string' ? v : String(v)) as Map<string, unknown> | undefined;
      if (!next) return this.entry(this.values(labels)).child;
      node = next;
    }
    const last = labels[n - 1]!;
    const hit = node.get(typeof last === 'string' ? last : String(last)) as Entry<T> | undefined;
    return (hit ?? this.entry(this.values(labels))).child;
  }

  /** The series of these (string) values, created on first use and linked into the lookup trie. */
  private entry(values: string[]): Entry<T> {
    const key = values.join('\u0000');
    let entry = this.children.get(key);
    if (!entry) {
      entry = { values, child: this.newChild() };
      this.children.set(key, entry);
    }
    if (values.length) {
      let node = this.trie;
      for (let i = 0; i < values.length - 1; i++) {
        let next = node.get(values[i]!) as Map<string, unknown> | undefined;
        if (!next) node.set(values[i]!, (next = new Map()));
        node = next;
      }
      node.set(values[values.length - 1]!, entry);
    }
    return entry;
  }

  /** Removes one series; true if it existed. */
  delete(labels: Labels): boolean {
    const values = this.values(labels);
    const existed = this.children.delete(values.join('\u0000'));
    if (existed) {
      this.generation++;
      // Rebuilt from what is left (deletes are rare: nothing per request).
      this.trie.clear();
      for (const e of this.children.values()) this.entry(e.values);
    }
    return existed;
  }

  private values(labels: Labels): string[] {
    if (Array.isArray(labels)) {
      if (labels.length !== this.labelNames.length) {
        throw new Error(
          `inconsistent label cardinality: expected ${this.labelNames.length} label values but got ${labels.length} in ${JSON.stringify(labels)}`,
        );
      }
      return labels.map(String);
    }
    const obj = labels as Readonly<Record<string, string | number>>;
    return this.labelNames.map((n) => String(obj[n] ?? ''));
  }

  collect(): Sample[][] {
    if (this.alwaysPresent && this.children.size === 0) this.with([]);
    const out: { values: string[]; samples: Sample[] }[] = [];
    for (const { values, child } of this.children.values()) {
      const pairs: [string, string][] = [...this.constLabels];
      this.labelNames.forEach((n, i) => pairs.push([n, values[i]!]));
      pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      out.push({ values: pairs.map((p) => p[1]), samples: this.samples(child, pairs) });
    }
    out.sort((a, b) => compareValues(a.values, b.values));
    return out.map((o) => o.samples);
  }

  reset(): void {
    if (!this.resettable) return;
    this.generation++;
    this.children.clear();
    this.trie.clear();
  }
}

function compareValues(a: string[], b: string[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

export class CounterChild {
  value = 0;
  inc(by = 1): void {
    if (by < 0) throw new Error('counter cannot decrease in value');
    this.value += by;
  }
}

export class GaugeChild {
  value = 0;
  set(v: number): void {
    this.value = v;
  }
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
}

export class HistogramChild {
  readonly buckets: readonly number[];
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(buckets: readonly number[]) {
    this.buckets = buckets;
    this.counts = new Array(buckets.length).fill(0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    // Non-cumulative per bucket; cumulated on output.
    for (let i = 0; i < this.buckets.length; i++) {
      if (v <= this.buckets[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

/** CounterVec (or a plain Counter when there are no labels). */
export class Counter extends Vec<CounterChild> {
  readonly type = 'counter' as const;
  protected newChild(): CounterChild {
    return new CounterChild();
  }
  protected samples(c: CounterChild, labels: [string, string][]): Sample[] {
    return [{ suffix: '', labels, value: c.value }];
  }
  inc(labels: Labels = [], by = 1): void {
    this.with(labels).inc(by);
  }
}

/** GaugeVec (or a plain Gauge). */
export class Gauge extends Vec<GaugeChild> {
  readonly type = 'gauge' as const;
  protected newChild(): GaugeChild {
    return new GaugeChild();
  }
  protected samples(c: GaugeChild, labels: [string, string][]): Sample[] {
    return [{ suffix: '', labels, value: c.value }];
  }
  set(labels: Labels, v: number): void {
    this.with(labels).set(v);
  }
  inc(labels: Labels = [], by = 1): void {
    this.with(labels).inc(by);
  }
  dec(labels: Labels = [], by = 1): void {
    this.with(labels).dec(by);
  }
}

/** HistogramVec (or a plain Histogram). */
export class Histogram extends Vec<HistogramChild> {
  readonly type = 'histogram' as const;
  readonly buckets: readonly number[];
  constructor(opts: HistogramOpts) {
    super(opts);
    this.buckets = [...opts.buckets].sort((a, b) => a - b).filter((b) => b !== Infinity);
  }
  protected newChild(): HistogramChild {
    return new HistogramChild(this.buckets);
  }
  protected samples(h: HistogramChild, labels: [string, string][]): Sample[] {
    const out: Sample[] = [];
    let cum = 0;
    for (let i = 0; i < h.buckets.length; i++) {
      cum += h.counts[i]!;
      out.push({ suffix: '_bucket', labels: [...labels, ['le', formatFloat(h.buckets[i]!)]], value: cum });
    }
    out.push({ suffix: '_bucket', labels: [...labels, ['le', '+Inf']], value: h.count });
    out.push({ suffix: '_sum', labels, value: h.sum });
    out.push({ suffix: '_count', labels, value: h.count });
    return out;
  }
  observe(labels: Labels, v: number): void {
    this.with(labels).observe(v);
  }
}

/** A gauge computed at scrape time (process figures, queue lengths). Not resettable. */
export class GaugeFunc implements Collector {
  readonly type = 'gauge' as const;
  readonly name: string;
  readonly help: string;
  readonly stabilityLevel: StabilityLevel;
  private readonly fn: () => number | undefined;
  constructor(opts: MetricOpts, fn: () => number | undefined) {
    this.name = opts.name;
    this.help = opts.help;
    this.stabilityLevel = opts.stabilityLevel ?? 'ALPHA';
    this.fn = fn;
  }
  collect(): Sample[][] {
    const v = this.fn();
    return v === undefined ? [] : [[{ suffix: '', labels: [], value: v }]];
  }
  reset(): void {}
}

/** Exponential buckets, as prometheus.ExponentialBuckets(start, factor, count). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  let v = start;
  for (let i = 0; i < count; i++) {
    out.push(v);
    v *= factor;
  }
  return out;
}

/** Linear buckets, as prometheus.LinearBuckets(start, width, count). */
export function linearBuckets(start: number, width: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * width);
}

/** A set of collectors printed together (legacyregistry, or the /metrics/slis registry). */
export class Registry {
  private readonly collectors = new Map<string, Collector>();
  private readonly collectHooks: (() => void)[] = [];

  /** Runs `fn` before every exposition (to publish watermarks and other lazily kept figures). */
  onCollect(fn: () => void): void {
    this.collectHooks.push(fn);
  }

  /** Registers a collector; duplicate names throw, as MustRegister panics. */
  register<C extends Collector>(c: C): C {
    if (this.collectors.has(c.name)) throw new Error(`duplicate metrics collector registration attempted: ${c.name}`);
    this.collectors.set(c.name, c);
    return c;
  }

  counter(opts: MetricOpts): Counter {
    return this.register(new Counter(opts));
  }
  gauge(opts: MetricOpts): Gauge {
    return this.register(new Gauge(opts));
  }
  histogram(opts: HistogramOpts): Histogram {
    return this.register(new Histogram(opts));
  }
  gaugeFunc(opts: MetricOpts, fn: () => number | undefined): GaugeFunc {
    return this.register(new GaugeFunc(opts, fn));
  }

  get(name: string): Collector | undefined {
    return this.collectors.get(name);
  }

  /** Increments on every reset (callers caching series re-fetch them). */
  generation = 0;

  /** legacyregistry.Reset(): clears every resettable metric. */
  reset(): void {
    this.generation++;
    for (const c of this.collectors.values()) c.reset();
  }

  /** Text exposition format 0.0.4. */
  expose(): string {
    for (const fn of this.collectHooks) fn();
    const names = [...this.collectors.keys()].sort();
    let out = '';
    for (const name of names) {
      const c = this.collectors.get(name)!;
      const series = c.collect();
      if (series.length === 0) continue;
      out += `# HELP ${name} ${escapeHelp(stabilityHelp(c.stabilityLevel, c.help))}\n# TYPE ${name} ${c.type}\n`;
      for (const samples of series) {
        for (const s of samples) {
          out += name + s.suffix;
          if (s.labels.length > 0) {
            out += '{' + s.labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',') + '}';
          }
          out += ' ' + formatFloat(s.value) + '\n';
        }
      }
    }
    return out;
  }
}
