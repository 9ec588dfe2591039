import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { multiProcessError, takeProcessesFlag } from './multiprocess.ts';

test('--processes: without a value the number of cores; =N; bad values are flag errors; other args kept in order', () => {
  assert.deepEqual(takeProcessesFlag(['--a=1', '--processes', '--b']), {
    processes: availableParallelism(),
    rest: ['--a=1', '--b'],
  });
  assert.deepEqual(takeProcessesFlag(['--processes=3', '--etcd-servers=http://e:2379']), {
    processes: 3,
    rest: ['--etcd-servers=http://e:2379'],
  });
  assert.deepEqual(takeProcessesFlag(['--x']), { processes: undefined, rest: ['--x'] });
  assert.match(takeProcessesFlag(['--processes=0']).error!, /invalid argument "0" for "--processes" flag/);
  assert.match(takeProcessesFlag(['--processes=2x']).error!, /invalid argument "2x"/);
});

test('--processes: etcd is required; the embedded and memory stores are refused with the reason', () => {
  assert.equal(multiProcessError(['--etcd-servers=http://127.0.0.1:2379'], 2), undefined);
  assert.match(multiProcessError([], 2)!, /^--processes=2 needs --etcd-servers: the embedded SQLite store belongs to/);
  assert.match(multiProcessError(['--storage-backend=memory'], 4)!, /the memory store/);
});
