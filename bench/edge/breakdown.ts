// `node bench/edge/breakdown.ts`: what the Worker bundle is made of. Bundles wrangler.toml's main
// as `npm run bench:edge` does (wrangler, minified), then attributes every byte of the output to
// its source through the source map and reports per group (a package, a src/ folder or a large
// file): minified bytes, and the gzip cost — the gzip size of the whole bundle minus the gzip size
// of the bundle with that group's bytes cut out (the marginal cost, what removing it would save).
// Not a test. Environment: BENCH_BREAKDOWN_TOP (rows, default 40), BENCH_BREAKDOWN_FILES=1 (one
// row per source file instead of per group), BENCH_CONFIG (wrangler config, default wrangler.toml).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BIN, REPO_ROOT } from '../../test/conformance/harness.ts';

const top = Number(process.env.BENCH_BREAKDOWN_TOP ?? 40);
const perFile = process.env.BENCH_BREAKDOWN_FILES === '1';
const config = process.env.BENCH_CONFIG ?? 'wrangler.toml';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

const out = mkdtempSync(join(tmpdir(), 'edge-breakdown-'));
try {
  const r = spawnSync(BIN + 'wrangler', ['deploy', '--dry-run', '--config', config, '--outdir', out, '--minify=true'], {
    cwd: REPO_ROOT,
    env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: '1', NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${r.stdout}\n${r.stderr}`);
  const main = readdirSync(out).find((f) => f.endsWith('.js'))!;
  const code = readFileSync(join(out, main));
  const map = JSON.parse(readFileSync(join(out, main + '.map'), 'utf8')) as { sources: string[]; mappings: string };
  report(code, map);
} finally {
  rmSync(out, { recursive: true, force: true });
}

/** The group a source belongs to: a package, a src/ folder, or the file itself when large. */
function groupOf(source: string): string {
  const s = relative(REPO_ROOT, resolve(out, source));
  if (perFile) return s.replace(/.*node_modules\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s);
  if (pkg) return pkg[1]!;
  if (/\.generated\.ts$/.test(s)) return s;
  const parts = s.split('/');
  return parts.slice(0, Math.min(parts.length, 3)).join('/');
}

function report(code: Buffer, map: { sources: string[]; mappings: string }): void {
  // Byte ranges of the output per source index (the output is ASCII-escaped JS: columns are bytes).
  const owner = new Int32Array(code.length).fill(-1);
  const lineStarts = [0];
  for (let i = 0; i < code.length; i++) if (code[i] === 10) lineStarts.push(i + 1);
  let line = 0;
  let src = 0;
  let prevCol = -1;
  let prevSrc = -1;
  const flush = (endCol: number): void => {
    if (prevCol < 0 || prevSrc < 0) return;
    const base = lineStarts[line]!;
    owner.fill(prevSrc, base + prevCol, Math.min(base + endCol, code.length));
  };
  for (const group of map.mappings.split(';')) {
    let genCol = 0;
    prevCol = -1;
    for (const seg of group.split(',')) {
      if (!seg) continue;
      const f = decodeVLQ(seg);
      genCol += f[0]!;
      flush(genCol);
      prevCol = genCol;
      if (f.length >= 4) {
        src += f[1]!;
        prevSrc = src;
      } else prevSrc = -1;
    }
    const end = (lineStarts[line + 1] ?? code.length + 1) - 1 - lineStarts[line]!;
    flush(end);
    line++;
  }
  const groups = new Map<string, number[]>();
  map.sources.forEach((s, i) => {
    const g = groupOf(s);
    groups.set(g, [...(groups.get(g) ?? []), i]);
  });
  const full = gzipSync(code).length;
  const rows: [string, number, number][] = [];
  let unattributed = 0;
  for (let i = 0; i < owner.length; i++) if (owner[i] === -1) unattributed++;
  for (const [g, idx] of groups) {
    const set = new Set(idx);
    let bytes = 0;
    const keep: number[] = [];
    let start = -1;
    for (let i = 0; i <= owner.length; i++) {
      const mine = i < owner.length && set.has(owner[i]!);
      if (mine) bytes++;
      if (!mine && start < 0 && i < owner.length) start = i;
      if ((mine || i === owner.length) && start >= 0) {
        keep.push(start, i);
        start = -1;
      }
    }
    if (!bytes) continue;
    const parts: Buffer[] = [];
    for (let k = 0; k < keep.length; k += 2) parts.push(code.subarray(keep[k], keep[k + 1]));
    const without = gzipSync(Buffer.concat(parts)).length;
    rows.push([g, bytes, full - without]);
  }
  rows.sort((a, b) => b[2] - a[2]);
  const k = (n: number): string => (n / 1024).toFixed(1).padStart(8);
  console.log(`bundle ${k(code.length)} KiB minified, ${k(full)} KiB gzip; unmapped ${k(unattributed)} KiB`);
  console.log(`${'minified'.padStart(8)} ${'gzip'.padStart(8)}  module`);
  for (const [g, bytes, gz] of rows.slice(0, top)) console.log(`${k(bytes)} ${k(gz)}  ${g}`);
  const rest = rows.slice(top);
  if (rest.length)
    console.log(
      `${k(rest.reduce((a, r) => a + r[1], 0))} ${k(rest.reduce((a, r) => a + r[2], 0))}  (${rest.length} more)`,
    );
}

function decodeVLQ(s: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of s) {
    let d = B64.indexOf(ch);
    const cont = d & 32;
    d &= 31;
    value += d << shift;
    if (cont) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}
