import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exceedsJSONNestingDepth, mayExceedYAMLNestingDepth, maxNestingDepth as max } from './nesting-depth.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('JSON: deeper than maxNestingDepth, brackets inside strings not counted', () => {
  assert.equal(exceedsJSONNestingDepth(nested(max)), false);
  assert.equal(exceedsJSONNestingDepth(nested(max + 1)), true);
  assert.equal(exceedsJSONNestingDepth('{"a":'.repeat(max + 1) + '1' + '}'.repeat(max + 1)), true);
  // Brackets in strings, with escaped quotes and backslashes before them.
  const s = JSON.stringify({ s: '['.repeat(3 * max) + '\\"' + '\\' + '{'.repeat(3 * max) });
  assert.equal(exceedsJSONNestingDepth(s), false);
  assert.equal(exceedsJSONNestingDepth(`[${s},${nested(max)}]`), true);
  // Siblings do not add up.
  assert.equal(
    exceedsJSONNestingDepth(
      `[${Array(3)
        .fill(nested(max - 1))
        .join(',')}]`,
    ),
    false,
  );
});

test('YAML: an upper bound from flow brackets, indentation and sequence indicators', () => {
  assert.equal(mayExceedYAMLNestingDepth(`x: ${nested(max - 2)}\n`), false);
  assert.equal(mayExceedYAMLNestingDepth(`x: ${nested(max + 1)}\n`), true);
  // Block mappings, one more space per level.
  const block = (n: number) => Array.from({ length: n }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1\n';
  assert.equal(mayExceedYAMLNestingDepth(block(max - 1)), false);
  assert.equal(mayExceedYAMLNestingDepth(block(max + 1)), true);
  // Compact nested sequences on one line, and flow inside an indented block.
  assert.equal(mayExceedYAMLNestingDepth('- '.repeat(max + 1) + 'x\n'), true);
  assert.equal(mayExceedYAMLNestingDepth(' '.repeat(max / 2) + 'x: ' + nested(max / 2 + 1)), true);
  // Balanced brackets in many values do not add up.
  assert.equal(
    mayExceedYAMLNestingDepth(
      Array(2 * max)
        .fill('k: "[a]" # {b}')
        .join('\n'),
    ),
    false,
  );
});
