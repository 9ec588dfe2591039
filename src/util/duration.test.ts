import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatGoDuration, parseGoDuration } from './duration.ts';

test('parses what Go parses', () => {
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('90s'), 90e9);
  assert.equal(parseGoDuration('1m30s'), 90e9);
  assert.equal(parseGoDuration('1.5h'), 5400e9);
  assert.equal(parseGoDuration('-2ms'), -2e6);
  assert.equal(parseGoDuration('+.5s'), 0.5e9);
  assert.equal(parseGoDuration('3µs'), 3000);
  assert.equal(parseGoDuration('3us'), 3000);
  assert.equal(parseGoDuration('1h2m3s4ms'), 3723004e6);
});

test("rejects with Go's messages", () => {
  assert.throws(() => parseGoDuration('foo'), { message: 'time: invalid duration "foo"' });
  assert.throws(() => parseGoDuration('10'), { message: 'time: missing unit in duration "10"' });
  assert.throws(() => parseGoDuration('10x'), { message: 'time: unknown unit "x" in duration "10x"' });
  assert.throws(() => parseGoDuration(''), { message: 'time: invalid duration ""' });
  assert.throws(() => parseGoDuration('.s'), { message: 'time: invalid duration ".s"' });
  assert.throws(() => parseGoDuration('-'), { message: 'time: invalid duration "-"' });
  assert.throws(() => parseGoDuration('9999999999h'), { message: 'time: invalid duration "9999999999h"' });
});

test('formats like Duration.String', () => {
  assert.equal(formatGoDuration(0), '0s');
  assert.equal(formatGoDuration(60e9), '1m0s');
  assert.equal(formatGoDuration(90e9), '1m30s');
  assert.equal(formatGoDuration(3600e9), '1h0m0s');
  assert.equal(formatGoDuration(500e6), '500ms');
  assert.equal(formatGoDuration(1.5e9), '1.5s');
});
