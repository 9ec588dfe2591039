import { test } from 'node:test';
import assert from 'node:assert/strict';
import { complete, newConfig, newServer, type Config } from '../server/config.ts';
import { ServerOptions } from '../server/options/options.ts';
import { FeatureOptions } from '../server/options/features.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { KlogLogger } from '../util/logger.ts';
import { FlowControl } from '../flowcontrol/controller.ts';

function server(overrides: Partial<Config> = {}) {
  const s = newServer(complete(newConfig(overrides)), 'test');
  s.prepareRun();
  return (path: string, init?: RequestInit) => s.fetch(new Request(`http://test${path}`, init));
}

test('acceptance 24: DELETE /metrics resets; GET /metrics shows apiserver_request_total for health calls', async () => {
  const fetch = server();
  await fetch('/version');
  const del = await fetch('/metrics', { method: 'DELETE' });
  assert.equal(del.status, 200);
  assert.equal(await del.text(), 'metrics reset\n');
  assert.equal((await fetch('/healthz')).status, 200);
  assert.equal((await fetch('/livez?verbose')).status, 200);
  const res = await fetch('/metrics');
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8; escaping=underscores');
  const text = await res.text();
  assert.match(
    text,
    /^apiserver_request_total\{code="200",component="",dry_run="",group="",resource="",scope="",subresource="\/healthz",verb="GET",version=""\} 1$/m,
  );
  assert.match(
    text,
    /^apiserver_request_total\{code="200",component="",dry_run="",group="",resource="",scope="",subresource="\/livez",verb="GET",version=""\} 1$/m,
  );
  // Reset cleared the /version call made before it.
  assert.doesNotMatch(text, /subresource="\/version"/);
  assert.match(
    text,
    /^# HELP apiserver_request_total \[STABLE\] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code\.$/m,
  );
  assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
  assert.match(
    text,
    /^apiserver_request_duration_seconds_bucket\{component="",dry_run="",group="",resource="",scope="",subresource="\/healthz",verb="GET",version="",le="0\.005"\} \d+$/m,
  );
  assert.match(text, /^apiserver_request_duration_seconds_bucket\{[^}]*subresource="\/healthz"[^}]*le="\+Inf"\} 1$/m);
  assert.match(text, /^kubernetes_healthcheck\{name="ping",type="healthz"\} 1$/m);
  assert.match(text, /^kubernetes_healthchecks_total\{name="ping",status="success",type="livez"\} 1$/m);
  assert.match(
    text,
    /^kubernetes_build_info\{build_date="[^"]*",compiler="[^"]*",git_commit="[^"]*",git_tree_state="[^"]*",git_version="v1\.\d+\.\d+[^"]*",go_version="[^"]*",major="1",minor="\d+",platform="[^"]*"\} 1$/m,
  );
  assert.match(text, /^apiserver_tls_handshake_errors_total 0$/m);
  assert.match(text, /^apiserver_audit_event_total 0$/m);
  const slis = await (await fetch('/metrics/slis')).text();
  assert.match(
    slis,
    /^# HELP kubernetes_healthchecks_total \[STABLE\] This metric records the results of all healthcheck\.$/m,
  );
  assert.doesNotMatch(slis, /apiserver_request_total/);
  // Listed on the index, as upstream.
  const index = JSON.parse(await (await fetch('/')).text()) as { paths: string[] };
  assert.ok(index.paths.includes('/metrics') && index.paths.includes('/metrics/slis'));
});

test('request labels: resource requests, LIST/WATCH/APPLY verbs, scopes, unknown paths kept out', async () => {
  const fetch = server();
  await fetch('/api/v1/namespaces/ns1/pods');
  await fetch('/api/v1/namespaces/ns1/pods?watch=true');
  await fetch('/apis/apps/v1/namespaces/ns1/deployments/d1', {
    method: 'PATCH',
    headers: { 'content-type': 'application/apply-patch+yaml' },
    body: '{}',
  });
  await fetch('/api/v1/nodes?dryRun=All', { method: 'POST', body: '{}' });
  await fetch('/random/path/123');
  const text = await (await fetch('/metrics')).text();
  const lines = text.split('\n').filter((l) => l.startsWith('apiserver_request_total{'));
  assert.ok(
    lines.includes(
      'apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 1',
    ),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /resource="pods",scope="namespace",subresource="",verb="WATCH"/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /group="apps",resource="deployments",scope="resource",subresource="",verb="APPLY"/.test(l)),
    lines.join('\n'),
  );
  assert.ok(
    lines.some((l) => /dry_run="All",group="",resource="nodes",scope="resource",subresource="",verb="POST"/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!text.includes('/random/path/123'));
  assert.ok(lines.some((l) => /code="404",component="",.*subresource="",verb="GET"/.test(l)));
});

test('without profiling DELETE /metrics does not reset; metrics are per server', async () => {
  const a = server({ enableProfiling: false });
  const b = server();
  await a('/healthz');
  const del = await a('/metrics', { method: 'DELETE' });
  assert.match(await del.text(), /subresource="\/healthz"/);
  assert.doesNotMatch(await (await b('/metrics')).text(), /subresource="\/healthz"/);
  const none = server({ enableMetrics: false });
  assert.equal((await none('/metrics')).status, 404);
});

test('FeatureOptions: flags, defaults, help section, APF config from manifests', async () => {
  const opts = new ServerOptions([new FeatureOptions()]);
  const usage = opts.flags.usage('edge-apiserver').replace(/\s+/g, ' ');
  assert.match(usage, /Features flags:/);
  assert.match(
    usage,
    /--enable-priority-and-fairness If true, replace the max-in-flight handler with an enhanced one that queues and dispatches with priority and fairness \(default true\)/,
  );
  assert.match(usage, /--profiling Enable profiling via web interface host:port\/debug\/pprof\/ \(default true\)/);

  const lines: string[] = [];
  const logger = new KlogLogger(0, (l) => lines.push(l));
  const fileSystem = new MemoryFileSystem({
    '/fc/a.yaml':
      'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: broken}\nspec: {matchingPrecedence: 20000, priorityLevelConfiguration: {name: global-default}}\n',
  });
  opts.parse(['--flowcontrol-config-file=/fc', '--profiling=false']);
  const config = newConfig();
  await opts.applyTo(config, { fileSystem, logger });
  assert.equal(config.enableProfiling, false);
  assert.ok(config.flowControl instanceof FlowControl);
  assert.deepEqual(
    config.flowControl.rejected.map((r) => r.reason),
    [
      'FlowSchema.flowcontrol.apiserver.k8s.io "broken" is invalid: spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000',
    ],
  );
  assert.ok(
    lines.some((l) => l.includes('Rejected flow-control object') && l.includes('must not be greater than 10000')),
    lines.join('\n'),
  );
  assert.equal(config.flowControl.configuration.flowSchemas.length, 13);
  assert.ok(config.postStartHooks.has('priority-and-fairness-config-consumer'));

  const off = new ServerOptions([new FeatureOptions()]);
  off.parse(['--enable-priority-and-fairness=false']);
  const c2 = newConfig();
  await off.applyTo(c2, { fileSystem, logger });
  assert.equal(c2.flowControl, undefined);
  assert.equal(c2.postStartHooks.size, 0);
  assert.equal(c2.enableProfiling, true);
});

test('/metrics is authorized like any path: system:monitoring may scrape, others are forbidden', async () => {
  const { RBACAuthorizer } = await import('../authorization/rbac.ts');
  const { requestFunc } = await import('../authentication/authenticator.ts');
  const authorizer = new RBACAuthorizer();
  const fetch = server({
    authentication: {
      apiAudiences: [],
      authenticator: requestFunc(async (ctx) => {
        const name = ctx.request.headers.get('x-user') ?? 'nobody';
        return {
          user: { name, groups: [...(ctx.request.headers.get('x-groups')?.split(',') ?? []), 'system:authenticated'] },
        };
      }),
    },
    authorization: { authorizer },
  });
  const scrape = await fetch('/metrics', { headers: { 'x-user': 'prometheus', 'x-groups': 'system:monitoring' } });
  assert.equal(scrape.status, 200);
  assert.match(await scrape.text(), /^# TYPE authentication_attempts counter$/m);
  const denied = await fetch('/metrics', { headers: { 'x-user': 'alice' } });
  assert.equal(denied.status, 403);
  assert.match(await denied.text(), /forbidden: User \\"alice\\" cannot get path \\"\/metrics\\"/);
  const reset = await fetch('/metrics', {
    method: 'DELETE',
    headers: { 'x-user': 'prometheus', 'x-groups': 'system:monitoring' },
  });
  assert.equal(reset.status, 403); // DELETE needs more than get
  const text = await (
    await fetch('/metrics', { headers: { 'x-user': 'prometheus', 'x-groups': 'system:monitoring' } })
  ).text();
  assert.match(text, /^authorization_attempts_total\{result="allowed"\} 2$/m);
  assert.match(text, /^authorization_attempts_total\{result="no-opinion"\} 2$/m);
  assert.match(text, /^authorization_duration_seconds_count\{result="allowed"\} 2$/m);
});
