// Audit with objects, end to end through the CLI (--audit-policy-file, --audit-log-path): at
// Metadata a Secret created with kubectl leaves no trace of its data; at RequestResponse the
// request object is the decoded body (also for YAML) and the response object the object written,
// both without managedFields when the rule says omitManagedFields.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlOK, kubectlSkip, startCLIServer } from './kubectl-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-audit-objects-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const policy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    resources: [{group: "", resources: [secrets]}]
  - level: RequestResponse
    omitManagedFields: true
    resources: [{group: "", resources: [configmaps]}]
  - level: None
`;

/** A POST of a YAML body with the admin token (the serving certificate is self-signed). */
function post(url: string, path: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, url),
      {
        method: 'POST',
        rejectUnauthorized: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/yaml' },
      },
      (res) => res.resume().on('end', () => resolve(res.statusCode!)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface AuditEvent {
  verb: string;
  objectRef?: { resource?: string; name?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  responseStatus?: { code?: number };
}

test(
  'audit: Metadata never records Secret data; RequestResponse records decoded objects without managedFields',
  { skip: kubectlSkip },
  async () => {
    const policyFile = join(dir, 'policy.yaml');
    const logFile = join(dir, 'audit.log');
    writeFileSync(policyFile, policy);
    const server = await startCLIServer(join(dir, 'certs'), [
      '--storage-backend=memory',
      `--audit-policy-file=${policyFile}`,
      `--audit-log-path=${logFile}`,
    ]);
    const secretValue = 'correct-horse-battery-staple';
    try {
      await kubectlOK(server, ['create', 'secret', 'generic', 's1', `--from-literal=password=${secretValue}`]);
      await kubectlOK(server, ['get', 'secret', 's1', '-o', 'yaml']);
      const yaml = `apiVersion: v1
kind: ConfigMap
metadata:
  name: c1
  managedFields:
    - manager: someone
      operation: Update
      apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1: {f:data: {}}
data:
  color: blue
`;
      assert.equal(await post(server.url, '/api/v1/namespaces/default/configmaps', server.token, yaml), 201);
    } finally {
      assert.equal(await server.stop(), 0);
    }
    const log = readFileSync(logFile, 'utf8');
    assert.ok(
      !log.includes(secretValue) && !log.includes(Buffer.from(secretValue).toString('base64')),
      'no secret data',
    );
    const events = log
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEvent);
    const secretCreate = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets');
    assert.ok(secretCreate, 'the secret create is audited');
    assert.equal(secretCreate.objectRef?.name, 's1');
    assert.equal(secretCreate.requestObject, undefined);
    assert.equal(secretCreate.responseObject, undefined);

    const cmCreate = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps');
    assert.ok(cmCreate, 'the configmap create is audited');
    assert.equal(cmCreate.responseStatus?.code, 201);
    const req = cmCreate.requestObject as { kind: string; data: unknown; metadata: Record<string, unknown> };
    assert.equal(req.kind, 'ConfigMap');
    assert.deepEqual(req.data, { color: 'blue' });
    assert.equal(req.metadata.managedFields, undefined);
    const resp = cmCreate.responseObject as { metadata: Record<string, unknown> };
    assert.equal(resp.metadata.name, 'c1');
    assert.ok(resp.metadata.uid, 'the object as written');
    assert.equal(resp.metadata.managedFields, undefined);
  },
);
