// AuditOptions (k8s.io/apiserver/pkg/server/options/audit.go): the "Auditing" flags with
// upstream's names, defaults, validation messages and ApplyTo (policy evaluator + log backend
// + webhook backend, each wrapped by its mode and truncation). Backends: k8s.io/apiserver/plugin/pkg/audit.
//
// Platform seams (ApplyContext): `openAuditLog` opens a file with rotation (the Node adapter's
// adapters/node/audit-log-writer.ts); without it only `--audit-log-path=-` (standard out) works.
// `webhookFetch` builds a fetch that uses the kubeconfig's CA/client certificate; without
// it the platform's fetch and trust store are used.

import type { Config } from '../config.ts';
import type { FlagSet, Flag } from './flags.ts';
import { FlagError } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';
import { goQuote } from '../../util/go.ts';
import { loadPolicyFromFile, newPolicyRuleEvaluator, type PolicyRuleEvaluator } from '../../audit/policy.ts';
import { AuditMetrics } from '../../audit/metrics.ts';
import { BufferedBackend, type BatchConfig } from '../../audit/buffered.ts';
import { allowedLogFormats, LogBackend, stdoutAuditWriter, type LogFormat } from '../../audit/log.ts';
import { IgnoreErrorsBackend, unionBackends } from '../../audit/union.ts';
import { TruncateBackend, type TruncateConfig } from '../../audit/truncate.ts';
import { WebhookBackend } from '../../audit/webhook.ts';
import { defaultRetryBackoff } from '../../util/webhook/backoff.ts';
import { needsTLSFetch, type FetchFunction } from '../../util/webhook/client.ts';
import { loadWebhookKubeconfig } from '../../util/webhook/kubeconfig.ts';
import type { AuditBackend } from '../../audit/types.ts';
import type { Logger } from '../../util/logger.ts';

export const allowedModes = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = (typeof allowedModes)[number];

interface BatchFlags {
  mode: Flag<string>;
  bufferSize: Flag<number>;
  maxSize: Flag<number>;
  maxWait: Flag<number>;
  throttleEnable: Flag<boolean>;
  throttleQPS: Flag<number>;
  throttleBurst: Flag<number>;
}

interface TruncateFlags {
  enabled: Flag<boolean>;
  maxBatchSize: Flag<number>;
  maxEventSize: Flag<number>;
}

interface BatchDefaults {
  mode: AuditMode;
  bufferSize: number;
  maxSize: number;
  /** Nanoseconds. */
  maxWait: number;
  throttleEnable: boolean;
  throttleQPS: number;
  throttleBurst: number;
  asyncDelegate: boolean;
}

const webhookBatchDefaults: BatchDefaults = {
  mode: 'batch',
  bufferSize: 10000,
  maxSize: 400,
  maxWait: 30e9,
  throttleEnable: true,
  throttleQPS: 10,
  throttleBurst: 15,
  asyncDelegate: true,
};

// Batching is not useful for the log file; asynchronous log writes only add contention.
const logBatchDefaults: BatchDefaults = {
  mode: 'blocking',
  bufferSize: 10000,
  maxSize: 1,
  maxWait: 0,
  throttleEnable: false,
  throttleQPS: 0,
  throttleBurst: 0,
  asyncDelegate: false,
};

function float32Flag(fs: FlagSet, name: string, def: number): Flag<number> {
  return fs.add<number>({
    name,
    defaultValue: def,
    typeName: 'float32',
    set: (raw) => {
      const t = raw.trim();
      if (t === '' || Number.isNaN(Number(t)))
        throw new FlagError(`strconv.ParseFloat: parsing ${goQuote(raw)}: invalid syntax`);
      return Math.fround(Number(t));
    },
    formatDefault: (v) => (v ? String(v) : ''),
  });
}

/** Registers a flag later: pflag prints a section's flags sorted by name, so they are added in that order. */
type Register = (name: string, make: () => void) => void;

function addBatchFlags(fs: FlagSet, reg: Register, plugin: string, d: BatchDefaults): BatchFlags {
  const b = {} as BatchFlags;
  reg(`audit-${plugin}-mode`, () => {
    b.mode = fs.string(`audit-${plugin}-mode`, d.mode);
  });
  reg(`audit-${plugin}-batch-buffer-size`, () => {
    b.bufferSize = fs.int(`audit-${plugin}-batch-buffer-size`, d.bufferSize);
  });
  reg(`audit-${plugin}-batch-max-size`, () => {
    b.maxSize = fs.int(`audit-${plugin}-batch-max-size`, d.maxSize);
  });
  reg(`audit-${plugin}-batch-max-wait`, () => {
    b.maxWait = fs.duration(`audit-${plugin}-batch-max-wait`, d.maxWait);
  });
  reg(`audit-${plugin}-batch-throttle-enable`, () => {
    b.throttleEnable = fs.bool(`audit-${plugin}-batch-throttle-enable`, d.throttleEnable);
  });
  reg(`audit-${plugin}-batch-throttle-qps`, () => {
    b.throttleQPS = float32Flag(fs, `audit-${plugin}-batch-throttle-qps`, d.throttleQPS);
  });
  reg(`audit-${plugin}-batch-throttle-burst`, () => {
    b.throttleBurst = fs.int(`audit-${plugin}-batch-throttle-burst`, d.throttleBurst);
  });
  return b;
}

function addTruncateFlags(fs: FlagSet, reg: Register, plugin: string): TruncateFlags {
  const t = {} as TruncateFlags;
  reg(`audit-${plugin}-truncate-enabled`, () => {
    t.enabled = fs.bool(`audit-${plugin}-truncate-enabled`, false);
  });
  reg(`audit-${plugin}-truncate-max-batch-size`, () => {
    t.maxBatchSize = fs.int(`audit-${plugin}-truncate-max-batch-size`, 10 * 1024 * 1024);
  });
  reg(`audit-${plugin}-truncate-max-event-size`, () => {
    t.maxEventSize = fs.int(`audit-${plugin}-truncate-max-event-size`, 100 * 1024);
  });
  return t;
}

function validateBatch(plugin: string, b: BatchFlags): string | undefined {
  const mode = b.mode.value;
  if (!(allowedModes as readonly string[]).includes(mode)) {
    return `invalid audit ${plugin} mode ${mode}, allowed modes are ${goQuote(allowedModes.join(','))}`;
  }
  if (mode !== 'batch') return undefined;
  if (b.bufferSize.value <= 0)
    return `invalid audit batch ${plugin} buffer size ${b.bufferSize.value}, must be a positive number`;
  if (b.maxSize.value <= 0)
    return `invalid audit batch ${plugin} max batch size ${b.maxSize.value}, must be a positive number`;
  if (b.throttleEnable.value) {
    if (b.throttleQPS.value <= 0)
      return `invalid audit batch ${plugin} throttle QPS ${b.throttleQPS.value}, must be a positive number`;
    if (b.throttleBurst.value <= 0)
      return `invalid audit batch ${plugin} throttle burst ${b.throttleBurst.value}, must be a positive number`;
  }
  return undefined;
}

function validateTruncate(plugin: string, t: TruncateFlags): string | undefined {
  if (t.maxEventSize.value <= 0)
    return `invalid audit truncate ${plugin} max event size ${t.maxEventSize.value}, must be a positive number`;
  if (t.maxBatchSize.value < t.maxEventSize.value) {
    return `invalid audit truncate ${plugin} max batch size ${t.maxBatchSize.value}, must be greater than max event size (${t.maxEventSize.value})`;
  }
  return undefined;
}

function validateGroupVersion(gv: string): string | undefined {
  const parts = gv.split('/');
  if (parts.length > 2) return `unexpected GroupVersion string: ${gv}`;
  if (gv !== 'audit.k8s.io/v1') return `invalid group version, allowed versions are "[audit.k8s.io/v1]"`;
  return undefined;
}

function batchConfig(b: BatchFlags, asyncDelegate: boolean): BatchConfig {
  return {
    bufferSize: b.bufferSize.value,
    maxBatchSize: b.maxSize.value,
    maxBatchWait: b.maxWait.value / 1e6,
    throttleEnable: b.throttleEnable.value,
    throttleQPS: b.throttleQPS.value,
    throttleBurst: b.throttleBurst.value,
    asyncDelegate,
  };
}

export class AuditOptions implements OptionsGroup {
  private policyFile!: Flag<string>;
  private logPath!: Flag<string>;
  private logMaxAge!: Flag<number>;
  private logMaxBackup!: Flag<number>;
  private logMaxSize!: Flag<number>;
  private logFormat!: Flag<string>;
  private logVersion!: Flag<string>;
  private logCompress!: Flag<boolean>;
  private logBatch!: BatchFlags;
  private logTruncate!: TruncateFlags;
  private webhookConfigFile!: Flag<string>;
  private webhookInitialBackoff!: Flag<number>;
  private webhookBatchInitialBackoff!: Flag<number>;
  private webhookVersion!: Flag<string>;
  private webhookBatch!: BatchFlags;
  private webhookTruncate!: TruncateFlags;
  /** The counters the backends report into (shared with Config.audit.metrics). */
  readonly metrics = new AuditMetrics();

  addFlags(fs: FlagSet): void {
    fs.section('Auditing');
    const defs: [string, () => void][] = [];
    const reg: Register = (name, make) => void defs.push([name, make]);
    reg('audit-policy-file', () => (this.policyFile = fs.string('audit-policy-file', '')));
    reg('audit-log-path', () => {
      this.logPath = fs.string('audit-log-path', '');
    });
    reg('audit-log-maxage', () => {
      this.logMaxAge = fs.int('audit-log-maxage', 366);
    });
    reg('audit-log-maxbackup', () => {
      this.logMaxBackup = fs.int('audit-log-maxbackup', 100);
    });
    reg('audit-log-maxsize', () => {
      this.logMaxSize = fs.int('audit-log-maxsize', 100);
    });
    reg('audit-log-format', () => {
      this.logFormat = fs.string('audit-log-format', 'json');
    });
    reg('audit-log-version', () => {
      this.logVersion = fs.string('audit-log-version', 'audit.k8s.io/v1');
    });
    reg('audit-log-compress', () => (this.logCompress = fs.bool('audit-log-compress', false)));
    this.logBatch = addBatchFlags(fs, reg, 'log', logBatchDefaults);
    this.logTruncate = addTruncateFlags(fs, reg, 'log');
    reg('audit-webhook-config-file', () => {
      this.webhookConfigFile = fs.string('audit-webhook-config-file', '');
    });
    reg('audit-webhook-initial-backoff', () => {
      this.webhookInitialBackoff = fs.duration('audit-webhook-initial-backoff', 10e9);
    });
    reg('audit-webhook-batch-initial-backoff', () => {
      this.webhookBatchInitialBackoff = fs.duration('audit-webhook-batch-initial-backoff', 10e9);
      this.webhookBatchInitialBackoff.def.hidden = true;
      this.webhookBatchInitialBackoff.def.deprecated = 'Deprecated, use --audit-webhook-initial-backoff instead.';
    });
    reg('audit-webhook-version', () => {
      this.webhookVersion = fs.string('audit-webhook-version', 'audit.k8s.io/v1');
    });
    this.webhookBatch = addBatchFlags(fs, reg, 'webhook', webhookBatchDefaults);
    this.webhookTruncate = addTruncateFlags(fs, reg, 'webhook');
    for (const [, make] of defs.sort((x, y) => (x[0] < y[0] ? -1 : 1))) make();
  }

  private logEnabled(): boolean {
    return this.logPath.value !== '';
  }

  private webhookEnabled(): boolean {
    return this.webhookConfigFile.value !== '';
  }

  validate(): string[] {
    const errs: string[] = [];
    const push = (e: string | undefined) => e && errs.push(e);
    if (this.logEnabled()) {
      push(validateBatch('log', this.logBatch));
      push(validateTruncate('log', this.logTruncate));
      push(validateGroupVersion(this.logVersion.value));
      if (!(allowedLogFormats as readonly string[]).includes(this.logFormat.value)) {
        errs.push(
          `invalid audit log format ${this.logFormat.value}, allowed formats are ${goQuote(allowedLogFormats.join(','))}`,
        );
      }
      if (this.logMaxAge.value < 0) errs.push(`--audit-log-maxage ${this.logMaxAge.value} can't be a negative number`);
      if (this.logMaxBackup.value < 0)
        errs.push(`--audit-log-maxbackup ${this.logMaxBackup.value} can't be a negative number`);
      if (this.logMaxSize.value < 0)
        errs.push(`--audit-log-maxsize ${this.logMaxSize.value} can't be a negative number`);
    }
    if (this.webhookEnabled()) {
      push(validateBatch('webhook', this.webhookBatch));
      push(validateTruncate('webhook', this.webhookTruncate));
      push(validateGroupVersion(this.webhookVersion.value));
    }
    return errs;
  }

  /** Wraps a backend by its mode: blocking-strict as is, blocking ignoring errors, batch buffered. */
  private wrapMode(b: AuditBackend, flags: BatchFlags, asyncDelegate: boolean, logger: Logger): AuditBackend {
    const mode = flags.mode.value as AuditMode;
    if (mode === 'blocking-strict') return b;
    if (mode === 'blocking') return new IgnoreErrorsBackend(b);
    return new BufferedBackend(b, batchConfig(flags, asyncDelegate), logger, this.metrics);
  }

  private wrapTruncate(b: AuditBackend, t: TruncateFlags, logger: Logger): AuditBackend {
    if (!t.enabled.value) return b;
    const config: TruncateConfig = { maxEventSize: t.maxEventSize.value, maxBatchSize: t.maxBatchSize.value };
    return new TruncateBackend(b, config, logger, this.metrics);
  }

  async applyTo(config: Config, ctx: ApplyContext): Promise<void> {
    const logger = ctx.logger;
    this.metrics.bind(config.metrics);
    // 1. The policy evaluator.
    let evaluator: PolicyRuleEvaluator | undefined;
    if (this.policyFile.value) {
      try {
        evaluator = newPolicyRuleEvaluator(await loadPolicyFromFile(ctx.fileSystem, this.policyFile.value, logger));
      } catch (err) {
        throw new Error(`loading audit policy file: ${err instanceof Error ? err.message : String(err)}`);
      }
    }

    // 2. The log backend.
    let logBackend: AuditBackend | undefined;
    if (this.logEnabled()) {
      const path = this.logPath.value;
      let writer;
      if (path === '-') writer = stdoutAuditWriter;
      else if (ctx.openAuditLog) {
        writer = await ctx.openAuditLog(path, {
          maxSize: this.logMaxSize.value,
          maxAge: this.logMaxAge.value,
          maxBackups: this.logMaxBackup.value,
          compress: this.logCompress.value,
        });
      } else {
        throw new Error(
          `--audit-log-path=${path}: this platform cannot write files; use "-" (standard out) or --audit-webhook-config-file`,
        );
      }
      if (!evaluator)
        logger.info('No audit policy file provided, no events will be recorded for log backend', undefined, 2);
      else {
        const format = this.logFormat.value as LogFormat;
        logBackend = this.wrapTruncate(
          this.wrapMode(new LogBackend(writer, format, logger, this.metrics), this.logBatch, false, logger),
          this.logTruncate,
          logger,
        );
      }
    }

    // 3. The webhook backend.
    let webhookBackend: AuditBackend | undefined;
    if (this.webhookEnabled()) {
      if (!evaluator)
        logger.info('No audit policy file provided, no events will be recorded for webhook backend', undefined, 2);
      else {
        let client;
        try {
          client = await loadWebhookKubeconfig(ctx.fileSystem, this.webhookConfigFile.value);
        } catch (err) {
          throw new Error(`initializing audit webhook: ${err instanceof Error ? err.message : String(err)}`);
        }
        const tls = client.tls;
        let fetchFn: FetchFunction | undefined;
        if (needsTLSFetch(tls)) {
          if (ctx.webhookFetch) fetchFn = ctx.webhookFetch(tls);
          else
            logger.warning(
              'Audit webhook kubeconfig has TLS settings this platform cannot apply; using its fetch() and trust store',
              { server: client.server },
            );
        }
        const initial = this.webhookBatchInitialBackoff.changed
          ? this.webhookBatchInitialBackoff.value
          : this.webhookInitialBackoff.value;
        const webhook = new WebhookBackend({
          client,
          backoff: defaultRetryBackoff(initial / 1e6),
          fetch: fetchFn,
          logger,
          metrics: this.metrics,
          userAgent: `kube-apiserver/${config.version.gitVersion}`,
        });
        webhookBackend = this.wrapTruncate(
          this.wrapMode(webhook, this.webhookBatch, true, logger),
          this.webhookTruncate,
          logger,
        );
      }
    }

    const backend = unionBackends(logBackend, webhookBackend);
    config.audit = { ...config.audit, policyRuleEvaluator: evaluator, backend, metrics: this.metrics };
    if (backend) logger.info(`Using audit backend: ${backend}`, undefined, 2);
  }
}
