// `edge-apiserver --processes=N` (issue 19): N processes share one port (SO_REUSEPORT) over one
// etcd. SIGKILL of one of them under load: clients retry on another (a new connection lands on a
// live process), no acknowledged write is lost, a watch resumed by resourceVersion sees every write
// exactly once; the supervisor starts the dead process again. Without etcd the command refuses to
// start several processes and says why.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { etcdSkip, freePort, startEtcd, type EtcdServer } from './etcd-harness.ts';
import { bin, configMap, request, watch, workDir, type WatchEventJSON } from './scaleout-harness.ts';

function run(args: string[]) {
  const proc = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-400_000)));
  const exit = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, exit, stderr: () => err };
}

const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

// A connection cut during the TLS handshake names ECONNRESET in its code, not in its message.
const transient = (err: unknown) =>
  /ECONNRESET|ECONNREFUSED|socket hang up|EPIPE|timed out/.test(
    `${(err as NodeJS.ErrnoException)?.code ?? ''} ${(err as Error)?.message ?? err}`,
  );

describe('--processes', () => {
  const work = workDir();
  after(() => work.rm());

  test('without etcd: a clear start-up error; a bad count is a flag error', async () => {
    const r = run(['--processes=2', `--cert-dir=${work.dir}/a`, '--secure-port=0', '--storage-backend=memory']);
    assert.equal(await r.exit, 1);
    assert.match(r.stderr(), /Error: --processes=2 needs --etcd-servers: the memory store belongs to the one process/);
    const s = run(['--processes=2', `--cert-dir=${work.dir}/b`, '--secure-port=0']);
    assert.equal(await s.exit, 1);
    assert.match(s.stderr(), /Error: --processes=2 needs --etcd-servers: the embedded SQLite store/);
    const bad = run(['--processes=zero', `--cert-dir=${work.dir}/c`]);
    assert.equal(await bad.exit, 1);
    assert.match(bad.stderr(), /invalid argument "zero" for "--processes" flag/);
  });

  describe('over etcd', { skip: etcdSkip() }, () => {
    let etcd: EtcdServer;
    before(async () => (etcd = await startEtcd()));
    after(async () => etcd?.stop());

    test('SIGKILL of one process under load: retries land on another, no acknowledged write lost, no duplicate watch event', async () => {
      const port = await freePort();
      const sup = run([
        '--processes=3',
        `--etcd-servers=${etcd.clientURL}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${port}`,
        `--cert-dir=${work.dir}/certs`,
        `--token-auth-file=${work.tokenFile}`,
      ]);
      try {
        const deadline = Date.now() + 60_000;
        while ((sup.stderr().match(/Serving securely on/g) ?? []).length < 3) {
          if (sup.proc.exitCode !== null) throw new Error(`supervisor exited: ${sup.stderr()}`);
          if (Date.now() > deadline) throw new Error(`not all processes serve: ${sup.stderr()}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(childrenOf(sup.proc.pid!).length, 3);
        assert.equal((await request(port, 'POST', '/api/v1/namespaces', { metadata: { name: 'load' } })).status, 201);
        const path = '/api/v1/namespaces/load/configmaps';
        const startRV = (await request(port, 'GET', path)).json().metadata.resourceVersion as string;

        // A client-go style watcher: re-watches from the last resourceVersion it saw when the stream ends.
        const seen: WatchEventJSON[] = [];
        let stopWatching = false;
        let rewatches = 0;
        const errors: string[] = [];
        const watcher = (async () => {
          let rv = startRV;
          while (!stopWatching) {
            try {
              const w = await watch(port, `${path}?resourceVersion=${rv}&allowWatchBookmarks=true`);
              const poll = setInterval(() => stopWatching && w.stop(), 50);
              let i = 0;
              const drain = () => {
                for (; i < w.events.length; i++) {
                  const e = w.events[i]!;
                  if (e.type === 'ERROR') {
                    errors.push(JSON.stringify(e));
                    continue;
                  }
                  rv = e.object.metadata.resourceVersion!;
                  if (e.type !== 'BOOKMARK') seen.push(e);
                }
              };
              const tick = setInterval(drain, 20);
              await w.ended;
              clearInterval(tick);
              clearInterval(poll);
              drain();
              rewatches++;
            } catch (err) {
              if (!transient(err)) throw err;
              await new Promise((r) => setTimeout(r, 50));
            }
          }
        })();

        // Writers: create with retries on connection errors; 201 = acknowledged.
        const acked = new Map<string, string>();
        let retried = 0;
        let writing = true;
        const writer = async (w: number) => {
          for (let i = 0; writing; i++) {
            const name = `w${w}-${i}`;
            for (let attempt = 0; ; attempt++) {
              try {
                const r = await request(port, 'POST', path, configMap(name, { w: String(w) }));
                if (r.status === 201) acked.set(name, r.json().metadata.resourceVersion);
                else if (r.status === 409 && attempt > 0) {
                  // The first attempt was written but its answer was lost: stored, never acknowledged.
                } else assert.fail(`create ${name}: ${r.status} ${r.body}`);
                break;
              } catch (err) {
                if (!transient(err) || attempt > 50) throw err;
                retried++;
                await new Promise((r) => setTimeout(r, 20));
              }
            }
          }
        };
        const writers = [0, 1, 2, 3].map(writer);
        await new Promise((r) => setTimeout(r, 1500));
        const victim = childrenOf(sup.proc.pid!)[0]!;
        process.kill(victim, 'SIGKILL');
        const killedAt = acked.size;
        await new Promise((r) => setTimeout(r, 2000));
        writing = false;
        await Promise.all(writers);
        assert.ok(acked.size > killedAt, 'writes went on after the kill');

        // Every acknowledged write is stored, at its resourceVersion.
        const list = (await request(port, 'GET', path)).json();
        const stored = new Map<string, string>(
          list.items.map((o: { metadata: { name: string; resourceVersion: string } }) => [
            o.metadata.name,
            o.metadata.resourceVersion,
          ]),
        );
        for (const [name, rv] of acked) assert.equal(stored.get(name), rv, `acknowledged ${name} lost`);

        // The watch saw every stored object exactly once, in revision order.
        const end = Date.now() + 20_000;
        while (seen.length < stored.size && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
        stopWatching = true;
        await watcher;
        assert.deepEqual(errors, [], 'a resumed watch was refused');
        const names = seen.map((e) => e.object.metadata.name!);
        assert.equal(new Set(names).size, names.length, 'duplicate watch events');
        assert.deepEqual(new Set(names), new Set(stored.keys()), 'the watch missed writes');
        assert.ok(seen.every((e) => e.type === 'ADDED'));
        const rvs = seen.map((e) => Number(e.object.metadata.resourceVersion));
        for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, 'revision order');

        // The supervisor started the killed process again.
        const again = Date.now() + 20_000;
        while (childrenOf(sup.proc.pid!).length < 3 && Date.now() < again) await new Promise((r) => setTimeout(r, 100));
        assert.equal(childrenOf(sup.proc.pid!).length, 3);
        assert.match(
          sup.stderr(),
          new RegExp(`process \\d \\(pid ${victim}\\) exited \\(SIGKILL\\); starting it again`),
        );
        process.stdout.write(
          `# ${acked.size} creates acknowledged, ${retried} retried after connection errors, ${rewatches} watch streams\n`,
        );
      } finally {
        const kids = childrenOf(sup.proc.pid!);
        sup.proc.kill('SIGTERM');
        const code = await sup.exit;
        assert.equal(code, 0, sup.stderr().slice(-2000));
        for (const k of kids)
          assert.throws(() => process.kill(k, 0), 'child still running after the supervisor exited');
      }
    });
  });
});
