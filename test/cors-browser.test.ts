// CORS in a real browser: headless Chromium (Debian's /usr/bin/chromium driven by playwright-core,
// no browser download) loads a page from an origin --cors-allowed-origins allows; its fetch with
// a bearer token is preflighted (answered by WithCORS before authentication), then sent, and the
// page reads the exposed `Date` header but not `Audit-Id` (upstream exposes only Date). A page
// from another origin is refused by the browser. The API server's self-signed certificate is
// trusted through the browser context's `ignoreHTTPSErrors` (Playwright's certificate-error
// bypass), not a CA.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';
import { startServer, type ParityServer } from './parity-server.ts';

const executablePath = '/usr/bin/chromium';
const inCI = process.env.CI === 'true' || process.env.CI === '1';
const haveChromium = existsSync(executablePath);
// Outside CI a missing browser skips with what to install; in CI the test runs and fails.
const skip = haveChromium || inCI ? false : `chromium not found at ${executablePath} (apt-get install -y chromium)`;

let api: ParityServer | undefined;
let pages: http.Server | undefined;
let context: BrowserContext | undefined;
let userDataDir = '';
const preflights: { origin: string | null; method: string | null; headers: string | null }[] = [];

function pageServer(): Promise<http.Server> {
  return new Promise((resolve) => {
    const srv = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>dashboard</title><p>dashboard</p>');
    });
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

before(async () => {
  if (skip) return;
  assert.ok(haveChromium, `CI needs ${executablePath} (.ci/run installs Debian's chromium)`);
  pages = await pageServer();
  const pagePort = (pages.address() as AddressInfo).port;
  api = await startServer([`--cors-allowed-origins=^http://127\\.0\\.0\\.1:${pagePort}$`], (config) => {
    const build = config.buildHandlerChainFunc;
    config.buildHandlerChainFunc = (h, c) => {
      const chain = build(h, c);
      return (ctx) => {
        if (ctx.request.method === 'OPTIONS') {
          const hd = ctx.request.headers;
          preflights.push({
            origin: hd.get('origin'),
            method: hd.get('access-control-request-method'),
            headers: hd.get('access-control-request-headers'),
          });
        }
        return chain(ctx);
      };
    };
  });
  userDataDir = mkdtempSync(join(tmpdir(), 'parity-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    ignoreHTTPSErrors: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

after(async () => {
  await context?.close();
  await api?.stop();
  pages?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

interface FetchResult {
  ok?: boolean;
  status?: number;
  date?: string | null;
  auditID?: string | null;
  contentType?: string | null;
  kind?: string;
  error?: string;
}

async function fetchFrom(origin: string, url: string): Promise<FetchResult> {
  const page = await context!.newPage();
  try {
    await page.goto(origin + '/');
    return await page.evaluate(async (target) => {
      try {
        const r = await fetch(target, { headers: { Authorization: 'Bearer alice-token' } });
        const body = await r.json();
        return {
          ok: r.ok,
          status: r.status,
          date: r.headers.get('date'),
          auditID: r.headers.get('audit-id'),
          contentType: r.headers.get('content-type'),
          kind: body.kind,
        };
      } catch (err) {
        return { error: String(err) };
      }
    }, url);
  } finally {
    await page.close();
  }
}

test(
  'CORS in Chromium: an allowed origin is preflighted, then reads the response and exposed headers',
  { skip },
  async () => {
    const pagePort = (pages!.address() as AddressInfo).port;
    const origin = `http://127.0.0.1:${pagePort}`;
    const r = await fetchFrom(origin, `https://127.0.0.1:${api!.port}/apis`);
    assert.equal(r.error, undefined);
    assert.equal(r.status, 200);
    assert.equal(r.kind, 'APIGroupList');
    // Safelisted, and Date is in Access-Control-Expose-Headers; Audit-Id is not exposed upstream.
    assert.equal(r.contentType, 'application/json');
    assert.match(r.date ?? '', /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    assert.equal(r.auditID, null);
    const p = preflights.find((x) => x.origin === origin);
    assert.ok(p, `a preflight from ${origin}: ${JSON.stringify(preflights)}`);
    assert.equal(p.method, 'GET');
    assert.equal(p.headers, 'authorization');
  },
);

test('CORS in Chromium: a page from another origin is refused by the browser', { skip }, async () => {
  const pagePort = (pages!.address() as AddressInfo).port;
  const origin = `http://localhost:${pagePort}`;
  const r = await fetchFrom(origin, `https://127.0.0.1:${api!.port}/apis`);
  assert.match(r.error ?? '', /TypeError: Failed to fetch/);
  assert.equal(r.status, undefined);
  // The browser asked, the server sent no CORS headers for that origin, the browser refused.
  assert.ok(
    preflights.some((x) => x.origin === origin),
    JSON.stringify(preflights),
  );
});
