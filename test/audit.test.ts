// Audit end to end: kube-apiserver flags → buildServerFromFlags → the full chain → the audit
// log file (Node writer), including a 401, a bad ?timeout= 400, a 404 Status from the API
// routes, and events still buffered when the server shuts down.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildServerFromFlags } from '../src/app/build.ts';
import { MemoryFileSystem } from '../src/util/filesystem.ts';
import { discardLogger, type Logger } from '../src/util/logger.ts';
import { openAuditLogFile } from '../adapters/node/audit-log-writer.ts';
import { complete, newConfig, newServer } from '../src/server/config.ts';
import { newEmptyDelegate, notFoundHandler } from '../src/server/genericapiserver.ts';
import { fixedPolicyRuleEvaluator } from '../src/audit/policy.ts';
import type { AuditBackend } from '../src/audit/types.ts';

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: []
rules:
- level: None
  nonResourceURLs: ["/healthz*"]
- level: Metadata
`;

test('audit end to end: flags, full chain, log file, shutdown delivers the buffer', async () => {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'audit-e2e-'));
  const logPath = path.join(dir, 'audit.log');
  const { server, config } = await buildServerFromFlags(
    [
      '--audit-policy-file=/etc/k/policy.yaml',
      `--audit-log-path=${logPath}`,
      '--audit-log-mode=batch',
      '--audit-log-batch-max-size=5',
      '--token-auth-file=/etc/k/tokens.csv',
    ],
    {
      logger: discardLogger,
      fileSystem: new MemoryFileSystem({
        '/etc/k/policy.yaml': policy,
        '/etc/k/tokens.csv': 'tok,alice,u-1,"dev,ops"\n',
      }),
      openAuditLog: openAuditLogFile,
    },
  );
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal });
  try {
    const ok = await server.fetch(
      new Request('https://k/api/v1/namespaces/default/pods?limit=1', {
        headers: { authorization: 'Bearer tok', 'user-agent': 'kubectl/v1.32.0' },
      }),
      {
        remoteAddress: '192.0.2.7',
      },
    );
    const unauth = await server.fetch(
      new Request('https://k/api/v1/pods', { headers: { authorization: 'Bearer nope' } }),
      { remoteAddress: '192.0.2.8' },
    );
    const badTimeout = await server.fetch(
      new Request('https://k/api/v1/pods?timeout=10', { headers: { authorization: 'Bearer tok' } }),
    );
    const health = await server.fetch(new Request('https://k/healthz', { headers: { authorization: 'Bearer tok' } }));
    assert.equal(unauth.status, 401);
    assert.equal(badTimeout.status, 400);
    assert.equal(health.status, 200);
    stop.abort();
    await running;

    const events = (await fsp.readFile(logPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const byID = (id: string | null) => events.filter((e) => e.auditID === id);

    const first = byID(ok.headers.get('audit-id'));
    assert.deepEqual(
      first.map((e) => e.stage),
      ['RequestReceived', 'ResponseComplete'],
    );
    assert.deepEqual(first[1].user, { username: 'alice', uid: 'u-1', groups: ['dev', 'ops', 'system:authenticated'] });
    assert.deepEqual(first[1].sourceIPs, ['192.0.2.7']);
    assert.equal(first[1].userAgent, 'kubectl/v1.32.0');
    assert.equal(first[1].requestURI, '/api/v1/namespaces/default/pods?limit=1');
    assert.deepEqual(first[1].objectRef, { resource: 'pods', namespace: 'default', apiVersion: 'v1' });
    assert.equal(first[1].responseStatus.code, ok.status);

    const failed = byID(unauth.headers.get('audit-id'));
    assert.equal(failed.length, 1);
    assert.equal(failed[0].stage, 'ResponseStarted');
    assert.deepEqual(failed[0].user, {});
    assert.deepEqual(failed[0].responseStatus, {
      metadata: {},
      message: 'Authentication failed, attempted: bearer',
      code: 401,
    });

    const bad = byID(badTimeout.headers.get('audit-id'));
    assert.deepEqual(
      bad.map((e) => e.stage),
      ['ResponseStarted'],
    );
    assert.deepEqual(bad[0].responseStatus, {
      metadata: {},
      message: 'invalid timeout specified in the request URL - time: missing unit in duration "10"',
      code: 400,
    });

    assert.equal(byID(health.headers.get('audit-id')).length, 0, 'level None');
    assert.equal(config.audit?.metrics?.droppedEvents, 0);
    // The same counts on /metrics (the server's registry).
    const exposed = config.metrics.registry.expose();
    assert.match(exposed, /^apiserver_audit_event_total 4$/m);
    assert.match(exposed, /^apiserver_audit_level_total\{level="Metadata"\} 3$/m);
    assert.match(exposed, /^apiserver_audit_level_total\{level="None"\} 1$/m);
  } finally {
    if (!stop.signal.aborted) stop.abort();
    await running.catch(() => {});
    await fsp.rm(dir, { recursive: true, force: true });
  }
});

test(
  'audit end to end: a full disk — blocking keeps serving (counted and logged), blocking-strict answers 500',
  { skip: !existsSync('/dev/full') && 'no /dev/full on this machine' },
  async () => {
    for (const mode of ['blocking', 'blocking-strict']) {
      const lines: string[] = [];
      const logger: Logger = {
        enabled: () => false,
        info: () => {},
        warning: (m) => lines.push(m),
        error: (m) => lines.push(m),
      };
      const { server, config } = await buildServerFromFlags(
        [
          '--audit-policy-file=/p.yaml',
          '--audit-log-path=/dev/full',
          '--audit-log-maxsize=0',
          `--audit-log-mode=${mode}`,
        ],
        {
          logger,
          fileSystem: new MemoryFileSystem({ '/p.yaml': policy }),
          openAuditLog: openAuditLogFile,
        },
      );
      const res = await server.fetch(new Request('https://k/version'));
      const body = await res.text();
      if (mode === 'blocking') {
        assert.notEqual(res.status, 500, body);
        assert.equal(config.audit?.metrics?.errorTotal.get('log'), 2, 'both stages counted');
      } else {
        assert.equal(res.status, 500);
        assert.equal(body, 'Internal Server Error: "/version": failed to store audit event\n');
        assert.equal(config.audit?.metrics?.requestsRejectedTotal, 1);
      }
      assert.match(
        lines.find((l) => l.startsWith('Error in audit plugin'))!,
        /^Error in audit plugin 'log' affecting 1 audit events: write \/dev\/full: no space left on device\nImpacted events:\n/,
      );
    }
  },
);

test('run(): the audit backend starts before serving, stops on InFlightRequestsDrained, is shut down before run() returns', async () => {
  const order: string[] = [];
  const config = newConfig({ logger: discardLogger });
  const backend: AuditBackend = {
    processEvents: () => true,
    run: (stop) => {
      order.push('run');
      void stop.then(() => order.push('stop'));
    },
    shutdown: async () => {
      order.push(`shutdown drained=${config.lifecycleSignals.InFlightRequestsDrained.hasFired}`);
    },
  };
  config.audit = { backend, policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata') };
  const server = newServer(complete(config), 'test', newEmptyDelegate(notFoundHandler));
  const stop = new AbortController();
  const running = server.run({ signal: stop.signal });
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(order, ['run']);
  stop.abort();
  await running;
  assert.deepEqual(order, ['run', 'stop', 'shutdown drained=true']);

  const failing = newConfig({ logger: discardLogger });
  failing.audit = {
    backend: { ...backend, run: () => Promise.reject(new Error('no sink')) },
    policyRuleEvaluator: fixedPolicyRuleEvaluator('Metadata'),
  };
  const s2 = newServer(complete(failing), 'test', newEmptyDelegate(notFoundHandler));
  await assert.rejects(s2.run({ signal: new AbortController().signal }), {
    message: 'failed to run the audit backend: no sink',
  });
});
