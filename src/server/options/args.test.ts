import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitArgs, ArgsSyntaxError } from './args.ts';

test('splitArgs: words, quotes and escapes', () => {
  assert.deepEqual(splitArgs(''), []);
  assert.deepEqual(splitArgs(undefined), []);
  assert.deepEqual(splitArgs('  --a=1   --b x\t--c\n--d  '), ['--a=1', '--b', 'x', '--c', '--d']);
  assert.deepEqual(splitArgs(`--cors-allowed-origins='//127\\.0\\.0\\.1(:|$)',"//x y"`), [
    '--cors-allowed-origins=//127\\.0\\.0\\.1(:|$),//x y',
  ]);
  assert.deepEqual(splitArgs('--name "a \\"b\\" \\\\ \\n"'), ['--name', 'a "b" \\ \\n']);
  assert.deepEqual(splitArgs('a\\ b c'), ['a b', 'c']);
  assert.deepEqual(splitArgs("''"), ['']);
  assert.deepEqual(splitArgs('--a \\\n  --b'), ['--a', '--b']);
});

test('splitArgs: comments and JSON arrays', () => {
  assert.deepEqual(splitArgs('# serving\n--a=1 # trailing\n--b=#not-a-comment'), ['--a=1', '--b=#not-a-comment']);
  assert.deepEqual(splitArgs('["--a=x y", "--b"]'), ['--a=x y', '--b']);
  assert.deepEqual(splitArgs(['--x']), ['--x']);
  // Not a JSON array of strings: split as words.
  assert.deepEqual(splitArgs('[1, 2]'), ['[1,', '2]']);
});

test('splitArgs: unterminated quotes are errors', () => {
  assert.throws(() => splitArgs("--a='x"), ArgsSyntaxError);
  assert.throws(() => splitArgs('--a="x'), ArgsSyntaxError);
  assert.throws(() => splitArgs('x\\'), ArgsSyntaxError);
});
