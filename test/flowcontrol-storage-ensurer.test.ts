// The APF bootstrap ensurer across a restart on one SQLite file, as upstream's
// pkg/registry/flowcontrol/ensurer: mandatory objects get their bootstrap spec back; a suggested
// object keeps an operator's spec when annotated `apf.kubernetes.io/autoupdate-spec: "false"` or
// when, without the annotation, its generation shows it was changed (the annotation is then set to
// "false"); one recreated by hand (generation 1, no annotation) is taken back; an object annotated
// "true" that upstream no longer ships is deleted; the operator's own objects stay.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSQLiteKV } from '../adapters/node/sqlite.ts';
import { startServer, type Harness } from './registry-harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-apf-ensurer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const db = join(dir, 'registry.db');

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const PL = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const key = 'apf.kubernetes.io/autoupdate-spec';

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within 10 s: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Obj = ReturnType<Awaited<ReturnType<Harness['req']>>['json']>;

async function put(h: Harness, path: string, change: (o: Obj) => void): Promise<void> {
  const o = (await h.req('GET', path)).json();
  change(o);
  const r = await h.req('PUT', path, JSON.stringify(o));
  assert.equal(r.status, 200, r.text);
}

const flowSchema = (name: string, annotations?: Record<string, string>) =>
  JSON.stringify({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 5000 },
  });

test('APF ensurer: mandatory reset, operator changes kept by annotation or generation, unwanted bootstrap objects removed', async () => {
  let h = await startServer('', { kv: () => openSQLiteKV(db) });
  try {
    await eventually('the bootstrap objects', async () => (await h.req('GET', `${FS}/global-default`)).status === 200);
    await eventually('the suggested levels', async () => (await h.req('GET', `${PL}/workload-high`)).status === 200);
    // Mandatory: changed by hand.
    await put(h, `${FS}/catch-all`, (o) => (o.spec.matchingPrecedence = 9999));
    // Suggested, opted out by annotation.
    await put(h, `${PL}/workload-low`, (o) => {
      o.metadata.annotations[key] = 'false';
      o.spec.limited.nominalConcurrencyShares = 42;
    });
    // Suggested, changed with the annotation removed (generation 2).
    await put(h, `${FS}/service-accounts`, (o) => {
      delete o.metadata.annotations[key];
      o.spec.matchingPrecedence = 8999;
    });
    // Suggested, deleted and recreated by hand without the annotation (generation 1).
    assert.equal((await h.req('DELETE', `${FS}/probes`)).status, 200);
    assert.equal((await h.req('POST', FS, flowSchema('probes'))).status, 201);
    // Once shipped by upstream (annotated true), and the operator's own.
    assert.equal((await h.req('POST', FS, flowSchema('retired-bootstrap', { [key]: 'true' }))).status, 201);
    assert.equal((await h.req('POST', FS, flowSchema('mine'))).status, 201);
  } finally {
    await h.stop();
  }

  h = await startServer('', { kv: () => openSQLiteKV(db) });
  try {
    await eventually(
      'the unwanted object removed',
      async () => (await h.req('GET', `${FS}/retired-bootstrap`)).status === 404,
    );
    const catchAll = (await h.req('GET', `${FS}/catch-all`)).json();
    assert.equal(catchAll.spec.matchingPrecedence, 10000);
    assert.equal(catchAll.metadata.annotations[key], 'true');
    const low = (await h.req('GET', `${PL}/workload-low`)).json();
    assert.equal(low.spec.limited.nominalConcurrencyShares, 42);
    assert.equal(low.metadata.annotations[key], 'false');
    const sa = (await h.req('GET', `${FS}/service-accounts`)).json();
    assert.equal(sa.spec.matchingPrecedence, 8999);
    assert.equal(sa.metadata.annotations[key], 'false');
    const probes = (await h.req('GET', `${FS}/probes`)).json();
    assert.equal(probes.spec.matchingPrecedence, 2);
    assert.equal(probes.spec.priorityLevelConfiguration.name, 'exempt');
    assert.equal(probes.metadata.annotations[key], 'true');
    const mine = (await h.req('GET', `${FS}/mine`)).json();
    assert.equal(mine.spec.matchingPrecedence, 5000);
    assert.equal(mine.metadata.annotations?.[key], undefined);
  } finally {
    await h.stop();
  }
});
