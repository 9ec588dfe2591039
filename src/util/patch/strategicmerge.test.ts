import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { strategicMergePatch, StrategicMergePatchError } from './strategicmerge.ts';
import type { OpenAPISchema, TypeSchema } from '../managedfields/schema.ts';

// Upstream's cases (scripts/gen-smp-testdata.mjs derives them from strategicpatch/patch_test.go).
const data = JSON.parse(readFileSync(new URL('./testdata/strategicpatch.json', import.meta.url), 'utf8')) as {
  schemas: Record<string, OpenAPISchema>;
  cases: { description: string; original: object; patch: object; result?: object; expectedError?: string }[];
};
const mergeItem: TypeSchema = { root: data.schemas.mergeItem!, definitions: data.schemas };

// Go marshals maps with sorted keys: compare that way (list order still matters).
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

test(`strategic merge patch: upstream's ${data.cases.length} cases`, () => {
  const failures: string[] = [];
  for (const c of data.cases) {
    try {
      const out = strategicMergePatch(c.original as never, c.patch as never, mergeItem);
      if (c.expectedError) failures.push(`${c.description}: expected error ${c.expectedError}`);
      else if (JSON.stringify(canonical(out)) !== JSON.stringify(canonical(c.result)))
        failures.push(
          `${c.description}: got ${JSON.stringify(canonical(out))}, want ${JSON.stringify(canonical(c.result))}`,
        );
    } catch (err) {
      if (!c.expectedError || !(err instanceof StrategicMergePatchError) || !err.message.includes(c.expectedError))
        failures.push(`${c.description}: ${String(err)}`);
    }
  }
  assert.deepEqual(failures, []);
});
