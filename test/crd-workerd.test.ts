// CRDs on another runtime: the stock Worker (wrangler.toml, the Store Durable Object as storage)
// under `wrangler dev` — a CRD created through the Worker becomes Established and serves its
// custom resources there, with pruning, defaults and upstream's 422.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIN, REPO_ROOT, spawnUntil } from './conformance/harness.ts';

test('a CRD through a Worker (Durable Object store) serves its custom resources', { timeout: 120_000 }, async () => {
  const flags = ['--authorization-mode=AlwaysAllow', '--anonymous-auth=true'];
  const proc = await spawnUntil(
    BIN + 'wrangler',
    [
      'dev',
      '--config',
      'wrangler.toml',
      '--ip',
      '127.0.0.1',
      '--port',
      '0',
      '--inspector-port',
      '0',
      '--show-interactive-dev-session=false',
      '--log-level',
      'info',
      '--persist-to',
      `/tmp/crd-workerd-${process.pid}`,
      '--var',
      `APISERVER_FLAGS:${JSON.stringify(flags)}`,
    ],
    {
      ready: /Ready on http:\/\/127\.0\.0\.1:(\d+)/,
      timeoutMs: 60_000,
      env: { PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
      cwd: REPO_ROOT,
    },
  );
  try {
    const base = `http://127.0.0.1:${proc.match[1]}`;
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(base + path, {
        method,
        body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      const text = await r.text();
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON
      }
      return { status: r.status, json, text };
    };
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.edge.example.com' },
      spec: {
        group: 'edge.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { size: { type: 'string', enum: ['s', 'l'], default: 's' } },
                  },
                },
              },
            },
          },
        ],
      },
    });
    assert.equal(crd.status, 201, crd.text);
    // Storage works across requests (each request gets its own Durable Object stub).
    const ns = await call('GET', '/api/v1/namespaces/default');
    assert.equal(ns.status, 200, ns.text);
    let established = false;
    let last = '';
    for (let i = 0; i < 100 && !established; i++) {
      const got = await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.edge.example.com');
      const conds = (got.json.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions;
      last = got.text;
      established = conds?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
      if (!established) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(established, `Established: ${last}\n${proc.output().slice(0, 3000)}`);
    let made = { status: 0, json: {} as Record<string, unknown>, text: '' };
    for (let i = 0; i < 50; i++) {
      made = await call('POST', '/apis/edge.example.com/v1/namespaces/default/widgets', {
        apiVersion: 'edge.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { extra: true },
      });
      if (made.status !== 404 && made.status !== 503) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.json.spec, { size: 's' });
    const bad = await call('POST', '/apis/edge.example.com/v1/namespaces/default/widgets', {
      apiVersion: 'edge.example.com/v1',
      kind: 'Widget',
      metadata: { name: 'b' },
      spec: { size: 'm' },
    });
    assert.equal(bad.status, 422);
    assert.equal(
      bad.json.message,
      'Widget.edge.example.com "b" is invalid: spec.size: Unsupported value: "m": supported values: "s", "l"',
    );
    const list = await call('GET', '/apis/edge.example.com/v1/widgets');
    assert.deepEqual(
      (list.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name),
      ['w'],
    );
    // Server-side apply (a watch is left out: on the stock Worker a watch cache started in one
    // request does not serve another, for built-in resources too).
    const applied = await fetch(
      `${base}/apis/edge.example.com/v1/namespaces/default/widgets/w?fieldManager=edge&force=true`,
      {
        method: 'PATCH',
        body: 'apiVersion: edge.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: l}\n',
        headers: { 'content-type': 'application/apply-patch+yaml' },
      },
    );
    assert.equal(applied.status, 200, await applied.clone().text());
    const appliedObj = (await applied.json()) as { metadata: { managedFields: { manager: string }[] } };
    assert.ok(appliedObj.metadata.managedFields.some((m) => m.manager === 'edge'));
    // Deleting the CRD deletes its objects, then the CRD.
    const del = await call(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.edge.example.com',
    );
    assert.equal(del.status, 200, del.text);
    let gone = 0;
    for (let i = 0; i < 100 && gone !== 404; i++) {
      gone = (await call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.edge.example.com'))
        .status;
      if (gone !== 404) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(gone, 404);
    assert.equal((await call('GET', '/apis/edge.example.com/v1/namespaces/default/widgets')).status, 404);
  } finally {
    await proc.stop();
  }
});
