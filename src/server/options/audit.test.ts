import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuditOptions } from './audit.ts';
import { FlagSet } from './flags.ts';
import { MemoryFileSystem } from '../../util/filesystem.ts';
import { newConfig } from '../config.ts';
import type { ApplyContext } from './options.ts';
import type { AuditWriter } from '../../audit/log.ts';
import type { Logger } from '../../util/logger.ts';

function parsed(args: string[]): { o: AuditOptions; fs: FlagSet } {
  const o = new AuditOptions();
  const fs = new FlagSet('test');
  o.addFlags(fs);
  fs.parse(args);
  return { o, fs };
}

function ctx(
  files: Record<string, string> = {},
  extra: Partial<ApplyContext> = {},
): ApplyContext & { lines: string[] } {
  const lines: string[] = [];
  const logger: Logger = {
    enabled: () => true,
    info: (m) => lines.push(m),
    warning: (m) => lines.push(m),
    error: (m) => lines.push(m),
  };
  return { fileSystem: new MemoryFileSystem(files), logger, lines, ...extra };
}

const policy = 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n';
const kubeconfig =
  'clusters: [{name: c, cluster: {server: "http://127.0.0.1:9/audit"}}]\ncontexts: [{name: x, context: {cluster: c}}]\ncurrent-context: x\n';

test('audit flags: upstream names and defaults in the Auditing section', () => {
  const { fs } = parsed([]);
  const help = fs.usage('kube-apiserver');
  assert.match(help, /\nAuditing flags:\n/);
  for (const f of [
    '--audit-policy-file string',
    '--audit-log-path string',
    '--audit-log-maxage int .*\\(default 366\\)',
    '--audit-log-maxbackup int .*\\(default 100\\)',
    '--audit-log-maxsize int .*\\(default 100\\)',
    '--audit-log-format string .*\\(default "json"\\)',
    '--audit-log-mode string .*\\(default "blocking"\\)',
    '--audit-log-batch-buffer-size int .*\\(default 10000\\)',
    '--audit-log-batch-max-size int .*\\(default 1\\)',
    '--audit-log-compress',
    '--audit-log-truncate-max-event-size int .*\\(default 102400\\)',
    '--audit-log-version string .*\\(default "audit.k8s.io/v1"\\)',
    '--audit-webhook-config-file string',
    '--audit-webhook-initial-backoff duration .*\\(default 10s\\)',
    '--audit-webhook-mode string .*\\(default "batch"\\)',
    '--audit-webhook-batch-max-size int .*\\(default 400\\)',
    '--audit-webhook-batch-max-wait duration .*\\(default 30s\\)',
    '--audit-webhook-batch-throttle-enable .*\\(default true\\)',
    '--audit-webhook-batch-throttle-qps float32 .*\\(default 10\\)',
    '--audit-webhook-batch-throttle-burst int .*\\(default 15\\)',
    '--audit-webhook-truncate-max-batch-size int .*\\(default 10485760\\)',
  ]) {
    assert.match(help.replace(/\n {10,}/g, ' '), new RegExp(f.replace(/ /, '\\s+').replace(/^--/, '--')), f);
  }
  assert.doesNotMatch(help, /audit-webhook-batch-initial-backoff/, 'deprecated flag hidden');
});

test('audit flags: validation messages as upstream (only for enabled backends)', () => {
  assert.deepEqual(parsed(['--audit-log-mode=sync', '--audit-webhook-mode=x']).o.validate(), []);
  assert.deepEqual(
    parsed([
      '--audit-log-path=-',
      '--audit-log-mode=sync',
      '--audit-log-format=xml',
      '--audit-log-maxage=-1',
      '--audit-log-maxbackup=-2',
      '--audit-log-maxsize=-3',
      '--audit-log-version=audit.k8s.io/v1beta1',
    ]).o.validate(),
    [
      'invalid audit log mode sync, allowed modes are "batch,blocking,blocking-strict"',
      'invalid group version, allowed versions are "[audit.k8s.io/v1]"',
      'invalid audit log format xml, allowed formats are "legacy,json"',
      "--audit-log-maxage -1 can't be a negative number",
      "--audit-log-maxbackup -2 can't be a negative number",
      "--audit-log-maxsize -3 can't be a negative number",
    ],
  );
  assert.deepEqual(
    parsed([
      '--audit-webhook-config-file=/k',
      '--audit-webhook-batch-buffer-size=0',
      '--audit-webhook-truncate-max-event-size=0',
    ]).o.validate(),
    [
      'invalid audit batch webhook buffer size 0, must be a positive number',
      'invalid audit truncate webhook max event size 0, must be a positive number',
    ],
  );
  assert.deepEqual(parsed(['--audit-webhook-config-file=/k', '--audit-webhook-batch-throttle-qps=0']).o.validate(), [
    'invalid audit batch webhook throttle QPS 0, must be a positive number',
  ]);
  assert.deepEqual(parsed(['--audit-log-path=-', '--audit-log-truncate-max-batch-size=10']).o.validate(), [
    'invalid audit truncate log max batch size 10, must be greater than max event size (102400)',
  ]);
});

test('audit ApplyTo: policy errors name the file and stop the start', async () => {
  const c = ctx({ '/p.yaml': policy.replace('Metadata', 'Everything') });
  await assert.rejects(parsed(['--audit-policy-file=/p.yaml', '--audit-log-path=-']).o.applyTo(newConfig(), c), {
    message:
      'loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file /p.yaml',
  });
  await assert.rejects(parsed(['--audit-policy-file=/none.yaml']).o.applyTo(newConfig(), c), {
    message:
      'loading audit policy file: failed to read file path "/none.yaml": open /none.yaml: no such file or directory',
  });
});

test('audit ApplyTo: backends by mode, union of log and webhook; no policy → no backend', async () => {
  const written: string[] = [];
  const writer: AuditWriter = { write: (d) => void written.push(d) };
  const c = ctx({ '/p.yaml': policy, '/k.yaml': kubeconfig }, { openAuditLog: async () => writer });
  const config = newConfig();
  await parsed([
    '--audit-policy-file=/p.yaml',
    '--audit-log-path=/var/log/audit.log',
    '--audit-webhook-config-file=/k.yaml',
    '--audit-webhook-truncate-enabled',
  ]).o.applyTo(config, c);
  assert.equal(String(config.audit?.backend), 'union[ignoreErrors<log>,truncate<buffered<webhook>>]');
  assert.ok(config.audit?.policyRuleEvaluator);

  const strict = newConfig();
  await parsed(['--audit-policy-file=/p.yaml', '--audit-log-path=-', '--audit-log-mode=blocking-strict']).o.applyTo(
    strict,
    c,
  );
  assert.equal(String(strict.audit?.backend), 'log');
  const batch = newConfig();
  await parsed(['--audit-policy-file=/p.yaml', '--audit-log-path=-', '--audit-log-mode=batch']).o.applyTo(batch, c);
  assert.equal(String(batch.audit?.backend), 'buffered<log>');

  const none = newConfig();
  await parsed(['--audit-log-path=-']).o.applyTo(none, c);
  assert.equal(none.audit?.backend, undefined);
  assert.ok(c.lines.includes('No audit policy file provided, no events will be recorded for log backend'));
});

test('audit ApplyTo: a file path needs the platform writer; webhook kubeconfig errors', async () => {
  const c = ctx({ '/p.yaml': policy, '/bad.yaml': 'apiVersion: v1\n' });
  await assert.rejects(
    parsed(['--audit-policy-file=/p.yaml', '--audit-log-path=/var/log/audit.log']).o.applyTo(newConfig(), c),
    {
      message:
        '--audit-log-path=/var/log/audit.log: this platform cannot write files; use "-" (standard out) or --audit-webhook-config-file',
    },
  );
  await assert.rejects(
    parsed(['--audit-policy-file=/p.yaml', '--audit-webhook-config-file=/bad.yaml']).o.applyTo(newConfig(), c),
    {
      message:
        'initializing audit webhook: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    },
  );
});
