// Flow control from storage, end to end through the CLI with kubectl 1.32, over the embedded store
// and over a real etcd: the bootstrap
// FlowSchemas and PriorityLevelConfigurations are objects (`kubectl get` shows upstream's
// columns); a FlowSchema created with kubectl routes a user's requests to a new priority level
// (the X-Kubernetes-PF-* headers name their UIDs); a FlowSchema naming a missing level is Dangling.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { etcdSkip, startEtcd } from './etcd-harness.ts';
import { kubectlOK, kubectlSkip, rawRequest, runKubectl, startCLIServer, type CLIServer } from './kubectl-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-flowcontrol-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A list as `token`'s holder, with the X-Kubernetes-PF-* headers that say where APF put it. */
async function pfHeaders(server: CLIServer, token: string): Promise<{ status: number; fs: string; pl: string }> {
  const r = await rawRequest(server, 'GET', '/api/v1/namespaces/default/configmaps', {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: r.status,
    fs: String(r.headers['x-kubernetes-pf-flowschema-uid'] ?? ''),
    pl: String(r.headers['x-kubernetes-pf-prioritylevel-uid'] ?? ''),
  };
}

const manifests = `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: bob-level}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 7
    limitResponse: {type: Queue, queuing: {queues: 8, handSize: 2, queueLengthLimit: 20}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: bob}
spec:
  priorityLevelConfiguration: {name: bob-level}
  matchingPrecedence: 100
  distinguisherMethod: {type: ByUser}
  rules:
    - subjects: [{kind: User, user: {name: bob}}]
      resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: orphan}
spec:
  priorityLevelConfiguration: {name: no-such-level}
  matchingPrecedence: 200
`;

const backends = [
  { name: 'the embedded store', etcd: false, skip: kubectlSkip },
  { name: 'etcd', etcd: true, skip: kubectlSkip || etcdSkip() },
];

for (const backend of backends)
  describe(`flow control from storage over ${backend.name}`, { skip: backend.skip }, () => {
    test('bootstrap objects listed, a kubectl-created FlowSchema routes requests live', async () => {
      const tokens = join(dir, 'tokens.csv');
      writeFileSync(tokens, 'bob-token,bob,u-bob\nadmin-token,admin,u-admin,system:masters\n');
      const etcd = backend.etcd ? await startEtcd() : undefined;
      const server = await startCLIServer(
        join(dir, backend.etcd ? 'certs-etcd' : 'certs'),
        [
          ...(etcd ? [`--etcd-servers=${etcd.clientURL}`] : []),
          '--authorization-mode=AlwaysAllow',
          `--token-auth-file=${tokens}`,
        ],
        'admin-token',
      );
      try {
        const uid = async (kind: string, name: string) =>
          (await kubectlOK(server, ['get', kind, name, '-o', 'jsonpath={.metadata.uid}'])).trim();
        // The bootstrap objects are ensured by a controller shortly after start, and their
        // Dangling conditions written a moment later (MISSINGPL is `?` until then).
        let listed = '';
        const settled = (l: string) => l.includes('global-default') && !/\s\?\n/.test(l);
        for (let i = 0; i < 200 && !settled(listed); i++) {
          listed = await kubectlOK(server, ['get', 'flowschemas']);
          if (!settled(listed)) await new Promise((r) => setTimeout(r, 100));
        }
        assert.match(listed, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL\n/);
        assert.match(listed, /\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+False\n/);
        assert.match(listed, /\ncatch-all\s+catch-all\s+10000\s+ByUser\s+\S+\s+False\n/);
        const levels = await kubectlOK(server, ['get', 'prioritylevelconfigurations']);
        assert.match(levels, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE\n/);
        assert.match(levels, /\nworkload-low\s+Limited\s+100\s+128\s+6\s+50\s+\S+\n/);

        const before = await pfHeaders(server, 'bob-token');
        assert.equal(before.status, 200);
        assert.equal(before.fs, await uid('flowschema', 'global-default'));

        await kubectlOK(server, ['create', '--validate=false', '-f', '-'], manifests);
        const fsUID = await uid('flowschema', 'bob');
        const plUID = await uid('prioritylevelconfiguration', 'bob-level');
        let after = before;
        for (let i = 0; i < 100 && after.fs !== fsUID; i++) {
          await new Promise((r) => setTimeout(r, 50));
          after = await pfHeaders(server, 'bob-token');
        }
        assert.deepEqual(after, { status: 200, fs: fsUID, pl: plUID });

        let dangling = '';
        for (let i = 0; i < 100 && dangling !== 'True'; i++) {
          dangling = (
            await kubectlOK(server, [
              'get',
              'flowschema',
              'orphan',
              '-o',
              'jsonpath={.status.conditions[?(@.type=="Dangling")].status}',
            ])
          ).trim();
          if (dangling !== 'True') await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(dangling, 'True');
        assert.match(
          await kubectlOK(server, ['get', 'flowschema', 'orphan']),
          /\norphan\s+no-such-level\s+200\s+<none>\s+\S+\s+True\n/,
        );

        // Deleting the FlowSchema sends bob back to the bootstrap configuration.
        await kubectlOK(server, ['delete', 'flowschema', 'bob']);
        for (let i = 0; i < 100 && after.fs === fsUID; i++) {
          await new Promise((r) => setTimeout(r, 50));
          after = await pfHeaders(server, 'bob-token');
        }
        assert.equal(after.fs, before.fs);
      } finally {
        assert.equal(await server.stop(), 0);
        await etcd?.stop();
      }
    });
  });

test(
  "flow control from storage: an invalid FlowSchema is refused with 422 and upstream's field errors",
  { skip: kubectlSkip },
  async () => {
    const server = await startCLIServer(join(dir, 'certs2'), ['--storage-backend=memory']);
    try {
      const r = await runKubectl(
        server,
        ['create', '--validate=false', '-f', '-'],
        'apiVersion: flowcontrol.apiserver.k8s.io/v1\nkind: FlowSchema\nmetadata: {name: bad}\nspec:\n  priorityLevelConfiguration: {name: x}\n  matchingPrecedence: 20000\n',
      );
      assert.notEqual(r.code, 0);
      assert.match(
        r.stderr.replace(/\s+/g, ' '),
        /The FlowSchema "bad" is invalid: spec\.matchingPrecedence: Invalid value: 20000: must not be greater than 10000/,
      );
    } finally {
      assert.equal(await server.stop(), 0);
    }
  },
);
