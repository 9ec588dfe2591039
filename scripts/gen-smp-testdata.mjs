// Derives the strategic merge patch test fixtures from upstream's test data:
// k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go (the YAML cases of
// createStrategicMergePatchTestCaseData and the raw cases' original/patch/result documents) and
// testdata/swagger-merge-item-v3.json (the schema they run against). Only the data is kept, as
// JSON: src/util/patch/testdata/strategicpatch.json.
//
//   node scripts/gen-smp-testdata.mjs <apimachinery checkout>
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const repo = process.argv[2];
if (!repo) throw new Error('usage: gen-smp-testdata.mjs <path to k8s.io/apimachinery>');
const dir = join(repo, 'pkg/util/strategicpatch');
const src = readFileSync(join(dir, 'patch_test.go'), 'utf8');
const schema = JSON.parse(readFileSync(join(dir, 'testdata/swagger-merge-item-v3.json'), 'utf8'));

const yamlDoc = (s) => (s === undefined ? undefined : (parse(s) ?? {}));

/** The YAML test cases: apply twoWay to original → modified; threeWay to current → result. */
function yamlCases() {
  const m = /var createStrategicMergePatchTestCaseData = \[\]byte\(`([\s\S]*?)`\)/.exec(src);
  const out = [];
  for (const c of parse(m[1]).testCases) {
    out.push({
      description: c.description,
      original: c.original ?? {},
      patch: c.twoWay ?? {},
      result: c.twoWayResult ?? c.modified ?? {},
    });
    if (c.threeWay !== undefined && c.result !== undefined)
      out.push({
        description: `${c.description} (three-way)`,
        original: c.current ?? {},
        patch: c.threeWay,
        result: c.result,
      });
  }
  return out;
}

/** The raw Go literal cases (`Description: "…"` followed by `Field: []byte(\`…\`)` entries). */
function rawCases(varName, threeWay) {
  const start = src.indexOf(`var ${varName} = []StrategicMergePatchRawTestCase{`);
  const end = src.indexOf('\n}\n', start);
  const body = src.slice(start, end);
  const out = [];
  for (let part of body.split(/\n\t\{\n\t\tDescription: /).slice(1)) {
    const description = JSON.parse(/^"(?:[^"\\]|\\.)*"/.exec(part)[0]);
    part = part.split(/\n\s*Description: /)[0];
    const field = (name) => {
      const m = new RegExp(`\\b${name}: \\[\\]byte\\(\`([\\s\\S]*?)\`\\)`).exec(part);
      return m ? m[1] : undefined;
    };
    const errM = /ExpectedError: "((?:[^"\\]|\\.)*)"/.exec(part);
    const expectedError = errM ? JSON.parse(`"${errM[1]}"`) : undefined;
    const original = yamlDoc(field('Original')) ?? {};
    const twoWay = yamlDoc(field('TwoWay'));
    const result = yamlDoc(field('TwoWayResult') ?? field('Modified'));
    if (twoWay !== undefined && (result !== undefined || expectedError))
      out.push({ description, original, patch: twoWay, result, expectedError });
    const current = yamlDoc(field('Current'));
    const three = yamlDoc(field('ThreeWay'));
    const res3 = yamlDoc(field('Result'));
    if (threeWay && current !== undefined && three !== undefined && res3 !== undefined && !/conflict/.test(description))
      out.push({
        description: `${description} (three-way)`,
        original: current,
        patch: three,
        result: res3,
        expectedError,
      });
  }
  return out;
}

const cases = [
  ...yamlCases(),
  ...rawCases('strategicMergePatchRawTestCases', true),
  ...rawCases('customStrategicMergePatchRawTestCases', false),
];
const outDir = new URL('../src/util/patch/testdata/', import.meta.url).pathname;
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, 'strategicpatch.json'),
  JSON.stringify({ schemas: schema.components.schemas, cases }, null, 1) + '\n',
);
console.log(`${cases.length} cases`);
