// NodeServingListener on real sockets: ALPN, TLS versions, SNI, client certificates, server
// limits, certificate reload, HTTP/2 header hygiene and graceful shutdown.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeServingListener, lightResponseHeader, type NodeServingListenerOptions } from './listener.ts';
import { NodeFileSystem } from './fs.ts';
import { SecureServingOptions } from '../../src/server/options/serving.ts';
import { newConfig } from '../../src/server/config.ts';
import { discardLogger } from '../../src/util/logger.ts';
import { generateSelfSignedCertKey } from '../../src/server/dynamiccertificates/generate.ts';
import { StaticCAContent } from '../../src/server/dynamiccertificates/content.ts';
import * as x509 from '../../src/server/dynamiccertificates/x509.ts';
import { encodePEM } from '../../src/server/dynamiccertificates/pem.ts';
import type { Transport } from '../../src/endpoints/request/context.ts';

const dir = mkdtempSync(join(tmpdir(), 'edge-apiserver-listener-'));
after(() => rmSync(dir, { recursive: true, force: true }));

type Handler = (request: Request, transport?: Transport) => Promise<Response>;

const echo: Handler = async (request, t) =>
  Response.json({
    path: new URL(request.url).pathname,
    protocol: t?.protocol,
    tlsVersion: t?.tlsVersion,
    remoteAddress: t?.remoteAddress,
    peerCertificates: t?.peerCertificates?.length ?? 0,
  });

/** One serving pair for the tests that do not look at generated certificates (RSA keys are slow). */
let sharedPair: Promise<{ certFile: string; keyFile: string }> | undefined;
function shared(): Promise<{ certFile: string; keyFile: string }> {
  sharedPair ??= generateSelfSignedCertKey({ host: '127.0.0.1', alternateDNS: ['localhost'] }).then((p) => {
    writeFileSync(join(dir, 'shared.crt'), p.cert);
    writeFileSync(join(dir, 'shared.key'), p.key);
    return { certFile: join(dir, 'shared.crt'), keyFile: join(dir, 'shared.key') };
  });
  return sharedPair;
}

/** Generated default certificate and the loopback one, as the CLI has them. */
const generated: Partial<SecureServingOptions> = { certFile: '', keyFile: '', loopback: true };

async function start(
  args: Partial<SecureServingOptions> = {},
  handler: Handler = echo,
  listenerOpts: NodeServingListenerOptions = {},
): Promise<NodeServingListener> {
  const o = new SecureServingOptions();
  Object.assign(o, { bindAddress: '127.0.0.1', certDirectory: '', loopback: false, ...(await shared()), ...args });
  const config = newConfig({ logger: discardLogger });
  await o.applyTo(config, { fileSystem: new NodeFileSystem(), logger: discardLogger, servesTLS: true });
  const l = new NodeServingListener(config.secureServing!, { port: 0, logger: discardLogger, ...listenerOpts });
  await l.serve(handler);
  return l;
}

function port(l: NodeServingListener): number {
  return l.address().port;
}

/** A TLS handshake; resolves with the socket (caller ends it). */
function handshake(p: number, opts: tls.ConnectionOptions = {}): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: p, rejectUnauthorized: false, ...opts }, () => resolve(s));
    s.once('error', reject);
  });
}

function h1Get(
  p: number,
  path: string,
  headers: Record<string, string> = {},
  extra: https.RequestOptions = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: p, path, headers, rejectUnauthorized: false, agent: false, ...extra },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function h2Get(
  session: http2.ClientHttp2Session,
  path: string,
): Promise<{ status: number; body: string; headers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':path': path });
    let headers: http2.IncomingHttpHeaders = {};
    let body = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (headers = h));
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve({ status: Number(headers[':status']), body, headers }));
    req.on('error', reject);
    req.end();
  });
}

/** An HTTP/2 frame: 9-byte header, then the payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}

/** HPACK: literal header fields without indexing, new names, no Huffman coding. */
function hpack(fields: [string, string][]): Buffer {
  return Buffer.concat(
    fields.flatMap(([n, v]) => [Buffer.from([0, n.length]), Buffer.from(n), Buffer.from([v.length]), Buffer.from(v)]),
  );
}

function h2Connect(p: number, opts: http2.SecureClientSessionOptions = {}): http2.ClientHttp2Session {
  const s = http2.connect(`https://127.0.0.1:${p}`, { rejectUnauthorized: false, ...opts });
  s.on('error', () => {});
  return s;
}

test('h2 and http/1.1 are negotiated by ALPN on one port; the transport carries protocol, TLS version, address', async () => {
  const l = await start();
  try {
    const s = h2Connect(port(l));
    const r2 = await h2Get(s, '/a');
    s.close();
    assert.equal(r2.status, 200);
    const j2 = JSON.parse(r2.body);
    assert.equal(j2.protocol, 'h2');
    assert.equal(j2.tlsVersion, 'TLSv1.3');
    assert.equal(j2.remoteAddress, '127.0.0.1');
    const r1 = await h1Get(port(l), '/b');
    assert.equal(JSON.parse(r1.body).protocol, 'http/1.1');
    const sock = await handshake(port(l), { ALPNProtocols: ['h2', 'http/1.1'] });
    assert.equal(sock.alpnProtocol, 'h2');
    sock.end();
  } finally {
    await l.shutdown(1000);
  }
});

/** Whether Node disabled Nagle on an accepted socket (net.Server noDelay sets kSetNoDelay). */
function noDelay(socket: net.Socket): boolean | undefined {
  const key = Object.getOwnPropertySymbols(socket).find((k) => k.description === 'kSetNoDelay');
  return key === undefined ? undefined : (socket as unknown as Record<symbol, boolean>)[key];
}

test('HTTP/1.1: the handler sees method, URL, joined headers and the body; a deleted header stays deleted in a clone', async () => {
  let seen: Record<string, unknown> = {};
  const l = await start({}, async (r) => {
    seen = {
      instance: r instanceof Request,
      method: r.method,
      url: r.url,
      accept: r.headers.get('Accept'),
      cookie: r.headers.get('cookie'),
      missing: r.headers.get('x-missing'),
      // Deleted as the authentication filter deletes Authorization: gone for every later reader.
      deleted: (r.headers.delete('Authorization'), [r.headers.get('authorization'), r.headers.has('authorization')]),
      names: [...r.headers.keys()].filter((k) => k.startsWith('x-') || k === 'authorization'),
      cloned: r.clone().headers.has('authorization'),
      redirect: r.redirect,
      body: await r.clone().text(),
      again: await r.text(),
      signal: r.signal.aborted,
    };
    return new Response(null, { status: 204 });
  });
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: port(l),
          path: '/a/b?c=d',
          method: 'PATCH',
          rejectUnauthorized: false,
          agent: false,
          headers: {
            accept: ['application/json', 'text/plain'],
            cookie: 'a=1; b=2',
            'x-one': '1',
            authorization: 'Bearer secret',
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end('{"x":1}');
    });
    assert.equal(status, 204);
    assert.deepEqual(seen, {
      instance: true,
      method: 'PATCH',
      url: `https://127.0.0.1:${port(l)}/a/b?c=d`,
      accept: 'application/json, text/plain',
      cookie: 'a=1; b=2',
      missing: null,
      deleted: [null, false],
      names: ['x-one'],
      cloned: false,
      redirect: 'follow',
      body: '{"x":1}',
      again: '{"x":1}',
      signal: false,
    });
  } finally {
    await l.shutdown(1000);
  }
});

test('TCP_NODELAY on every accepted connection, HTTP/2 and HTTP/1.1, as Go sets it', async () => {
  for (const args of [{}, { disableHTTP2: true }] as Partial<SecureServingOptions>[]) {
    const l = await start(args);
    try {
      const accepted: net.Socket[] = [];
      (l as unknown as { server: net.Server }).server.on('connection', (s: net.Socket) => accepted.push(s));
      if (!args.disableHTTP2) {
        const s = h2Connect(port(l));
        assert.equal((await h2Get(s, '/a')).status, 200);
        s.close();
      }
      assert.equal((await h1Get(port(l), '/b')).status, 200);
      assert.equal(accepted.length, args.disableHTTP2 ? 1 : 2);
      for (const s of accepted) assert.equal(noDelay(s), true);
    } finally {
      await l.shutdown(1000);
    }
  }
});

test('HTTP/2 settings: MaxConcurrentStreams 100 by default or the flag value, 256 KiB frames and window, header list size as Go computes it', async () => {
  for (const [streams, want] of [
    [0, 100],
    [1000, 1000],
  ] as const) {
    const l = await start({ http2MaxStreamsPerConnection: streams });
    try {
      const s = h2Connect(port(l));
      await new Promise<void>((resolve) => s.once('remoteSettings', () => resolve()));
      assert.equal(s.remoteSettings.maxConcurrentStreams, want);
      assert.equal(s.remoteSettings.maxFrameSize, 256 * 1024);
      assert.equal(s.remoteSettings.initialWindowSize, 256 * 1024);
      assert.equal(s.remoteSettings.maxHeaderListSize, (1 << 20) + 320);
      // MaxUploadBufferPerConnection = 256 KiB × streams.
      await h2Get(s, '/');
      assert.equal(s.state.remoteWindowSize, 256 * 1024 * want);
      s.close();
    } finally {
      await l.shutdown(1000);
    }
  }
});

test('--tls-cipher-suites limits TLS 1.2 suites; TLS 1.3 is unaffected', async () => {
  const l = await start({ cipherSuites: ['TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384'] });
  try {
    await assert.rejects(handshake(port(l), { maxVersion: 'TLSv1.2', ciphers: 'ECDHE-RSA-AES128-GCM-SHA256' }));
    const ok = await handshake(port(l), { maxVersion: 'TLSv1.2' });
    assert.equal(ok.getCipher().standardName, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384');
    ok.end();
    const t13 = await handshake(port(l));
    assert.equal(t13.getProtocol(), 'TLSv1.3');
    t13.end();
  } finally {
    await l.shutdown(1000);
  }
});

test('--disable-http2-serving negotiates http/1.1 only', async () => {
  const l = await start({ disableHTTP2: true });
  try {
    const sock = await handshake(port(l), { ALPNProtocols: ['h2', 'http/1.1'] });
    assert.equal(sock.alpnProtocol, 'http/1.1');
    sock.end();
    assert.equal((await h1Get(port(l), '/')).status, 200);
  } finally {
    await l.shutdown(1000);
  }
});

test('TLS 1.1 is refused by default, TLS 1.2 accepted; --tls-min-version VersionTLS13 refuses 1.2', async () => {
  const l = await start();
  try {
    await assert.rejects(
      handshake(port(l), { minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT:@SECLEVEL=0' }),
    );
    const s = await handshake(port(l), { maxVersion: 'TLSv1.2' });
    assert.equal(s.getProtocol(), 'TLSv1.2');
    s.end();
  } finally {
    await l.shutdown(1000);
  }
  const l13 = await start({ minTLSVersion: 'VersionTLS13' });
  try {
    await assert.rejects(handshake(port(l13), { maxVersion: 'TLSv1.2' }));
    (await handshake(port(l13))).end();
  } finally {
    await l13.shutdown(1000);
  }
});

function sanDNS(sock: tls.TLSSocket): string {
  return sock.getPeerCertificate().subjectaltname ?? '';
}

test('SNI: loopback name gets the loopback certificate even when a user SNI certificate claims it; names and wildcards; default without SNI', async () => {
  const user = await generateSelfSignedCertKey({ host: 'user.example.com', alternateDNS: ['*.wild.example.com'] });
  writeFileSync(join(dir, 'user.crt'), user.cert);
  writeFileSync(join(dir, 'user.key'), user.key);
  const claim = await generateSelfSignedCertKey({ host: 'claimer.example.com' });
  writeFileSync(join(dir, 'claim.crt'), claim.cert);
  writeFileSync(join(dir, 'claim.key'), claim.key);
  const l = await start({
    ...generated,
    sniCertKeys: [
      { certFile: join(dir, 'user.crt'), keyFile: join(dir, 'user.key'), names: [] },
      { certFile: join(dir, 'claim.crt'), keyFile: join(dir, 'claim.key'), names: ['apiserver-loopback-client'] },
    ],
  });
  try {
    const lb = await handshake(port(l), { servername: 'apiserver-loopback-client' });
    assert.equal(sanDNS(lb), 'DNS:apiserver-loopback-client');
    lb.end();
    const u = await handshake(port(l), { servername: 'user.example.com' });
    assert.match(sanDNS(u), /DNS:user\.example\.com/);
    u.end();
    const w = await handshake(port(l), { servername: 'x.wild.example.com' });
    assert.match(sanDNS(w), /DNS:user\.example\.com/);
    w.end();
    const d = await handshake(port(l));
    assert.match(sanDNS(d), /^DNS:kubernetes\.default\.svc,.*IP Address:127\.0\.0\.1/);
    d.end();
    const other = await handshake(port(l), { servername: 'nothing.test' });
    assert.match(sanDNS(other), /^DNS:kubernetes\.default\.svc/);
    other.end();
  } finally {
    await l.shutdown(1000);
  }
});

test('without SNI, a certificate named by the local IP is served (--tls-sni-cert-key …:127.0.0.1)', async () => {
  const ipc = await generateSelfSignedCertKey({ host: 'by-ip.example.com' });
  writeFileSync(join(dir, 'ip.crt'), ipc.cert);
  writeFileSync(join(dir, 'ip.key'), ipc.key);
  const l = await start({
    ...generated,
    sniCertKeys: [{ certFile: join(dir, 'ip.crt'), keyFile: join(dir, 'ip.key'), names: ['127.0.0.1'] }],
  });
  try {
    const noSNI = await handshake(port(l));
    assert.match(String(noSNI.getPeerCertificate().subject.CN), /^by-ip\.example\.com@/);
    noSNI.end();
    const lb = await handshake(port(l), { servername: 'apiserver-loopback-client' });
    assert.equal(sanDNS(lb), 'DNS:apiserver-loopback-client');
    lb.end();
    const other = await handshake(port(l), { servername: 'unknown.test' });
    assert.match(String(other.getPeerCertificate().subject.CN), /^127\.0\.0\.1@/);
    other.end();
  } finally {
    await l.shutdown(1000);
  }
});

test("a plaintext HTTP request on the TLS port gets Go's 400 reply", async () => {
  const l = await start();
  try {
    const c = net.connect(port(l), '127.0.0.1');
    let out = '';
    c.setEncoding('utf8');
    c.on('data', (d) => (out += d));
    c.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((resolve) => c.once('close', () => resolve()));
    assert.equal(out, 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n');
  } finally {
    await l.shutdown(1000);
  }
});

async function clientCertAndCA(): Promise<{ caPEM: string; cert: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const caKeys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=client-ca',
    keys: caKeys,
    signingAlgorithm: alg,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true),
    ],
  });
  const keys = (await crypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    subject: 'CN=alice, O=system:masters',
    issuer: ca.subject,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: alg,
    extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
  });
  const key = encodePEM(
    'PRIVATE KEY',
    new Uint8Array((await crypto.subtle.exportKey('pkcs8', keys.privateKey)) as ArrayBuffer),
  );
  return { caPEM: ca.toString('pem'), cert: cert.toString('pem'), key };
}

test('client CA: certificates are requested, not required; the chain reaches the handler as DER', async () => {
  const c = await clientCertAndCA();
  let seen: Uint8Array[] = [];
  const l = await start(
    {},
    async (_r, t) => {
      seen = t!.peerCertificates!;
      return new Response('ok');
    },
    { clientCA: new StaticCAContent('client-ca', c.caPEM) },
  );
  try {
    assert.equal((await h1Get(port(l), '/')).status, 200);
    assert.equal(seen.length, 0);
    const s = h2Connect(port(l), { cert: c.cert, key: c.key });
    assert.equal((await h2Get(s, '/')).status, 200);
    s.close();
    assert.ok(seen.length >= 1);
    assert.equal(new x509.X509Certificate(seen[0]! as Uint8Array<ArrayBuffer>).subject, 'CN=alice, O=system:masters');
  } finally {
    await l.shutdown(1000);
  }
});

/** Sends a raw HTTP/1.1 request over TLS and returns what came back before the close. */
async function rawH1(p: number, request: string): Promise<string> {
  const s = await handshake(p, { ALPNProtocols: ['http/1.1'] });
  let out = '';
  s.setEncoding('utf8');
  s.on('data', (d) => (out += d));
  s.on('error', () => {}); // the server may close while we are still writing
  s.write(request);
  await new Promise<void>((resolve) => s.once('close', () => resolve()));
  return out;
}

test('request headers: 1 MiB allowed on HTTP/1.1, beyond → 431', async () => {
  const l = await start();
  try {
    assert.equal((await h1Get(port(l), '/', { 'x-big': 'a'.repeat(512 * 1024) })).status, 200);
    const big = await rawH1(
      port(l),
      `GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${'a'.repeat(1100 * 1024)}\r\n\r\n`,
    );
    assert.match(big, /^HTTP\/1\.1 431 /);
  } finally {
    await l.shutdown(1000);
  }
});

test('a client stalled mid-headers is cut off after the header timeout; garbage handshakes do not hurt', async () => {
  const l = await start({}, echo, { headersTimeout: 300 });
  try {
    const s = await handshake(port(l), { ALPNProtocols: ['http/1.1'] });
    s.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    s.resume();
    const t0 = Date.now();
    await new Promise<void>((resolve) => s.once('close', () => resolve()));
    const took = Date.now() - t0;
    assert.ok(took < 2500, `closed after ${took} ms`);
    // Resets before and during the handshake.
    for (const bytes of [null, Buffer.from([0x16]), Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])]) {
      const c = net.connect(port(l), '127.0.0.1');
      c.on('error', () => {});
      await new Promise<void>((resolve) => c.once('connect', () => resolve()));
      if (bytes) c.write(bytes);
      await new Promise((r) => setTimeout(r, 20));
      c.resetAndDestroy();
    }
    // Plain garbage instead of a ClientHello.
    const raw = net.connect(port(l), '127.0.0.1');
    raw.on('error', () => {});
    raw.resume();
    raw.write(Buffer.from('this is not TLS\r\n\r\n'));
    await new Promise<void>((resolve) => raw.once('close', () => resolve()));
    assert.equal((await h1Get(port(l), '/')).status, 200);
  } finally {
    await l.shutdown(1000);
  }
});

test('cert/key reload: a new pair is served to new handshakes; a half-written pair keeps the old one', async () => {
  const crt = join(dir, 'reload.crt');
  const key = join(dir, 'reload.key');
  const a = await generateSelfSignedCertKey({ host: 'a.example.com' });
  const b = await generateSelfSignedCertKey({ host: 'b.example.com' });
  const c = await generateSelfSignedCertKey({ host: 'c.example.com' });
  writeFileSync(crt, a.cert);
  writeFileSync(key, a.key);
  const sniCrt = join(dir, 'reload-sni.crt');
  const sniKey = join(dir, 'reload-sni.key');
  writeFileSync(sniCrt, b.cert);
  writeFileSync(sniKey, b.key);
  const l = await start({
    certFile: crt,
    keyFile: key,
    sniCertKeys: [{ certFile: sniCrt, keyFile: sniKey, names: ['sni.example.com'] }],
  });
  const cn = async (servername?: string) => {
    const s = await handshake(port(l), servername ? { servername } : {});
    const name = s.getPeerCertificate().subject.CN;
    s.end();
    return name;
  };
  const waitFor = async (want: RegExp, servername?: string) => {
    for (let i = 0; i < 60; i++) {
      if (want.test(String(await cn(servername)))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`never served ${want}`);
  };
  try {
    assert.match(String(await cn()), /^a\.example\.com@/);
    writeFileSync(crt, b.cert);
    writeFileSync(key, b.key);
    await waitFor(/^b\.example\.com@/);
    // Only the certificate: the key no longer matches, the old pair stays.
    writeFileSync(crt, c.cert);
    await new Promise((r) => setTimeout(r, 400));
    assert.match(String(await cn()), /^b\.example\.com@/);
    writeFileSync(key, c.key);
    await waitFor(/^c\.example\.com@/);
    // SNI pairs reload the same way.
    assert.match(String(await cn('sni.example.com')), /^b\.example\.com@/);
    writeFileSync(sniCrt, a.cert);
    writeFileSync(sniKey, a.key);
    await waitFor(/^a\.example\.com@/, 'sni.example.com');
    assert.match(String(await cn()), /^c\.example\.com@/);
  } finally {
    await l.shutdown(1000);
  }
});

test('HTTP/2: hop-by-hop headers are stripped, raw ReadableStream bodies stream; Connection: close becomes GOAWAY', async () => {
  const l = await start({}, async (request) => {
    if (new URL(request.url).pathname === '/close') return new Response('bye', { headers: { connection: 'close' } });
    const enc = new TextEncoder();
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        if (n === 3) return ctrl.close();
        ctrl.enqueue(enc.encode(`{"n":${n++}}\n`));
        await new Promise((r) => setTimeout(r, 10));
      },
    });
    return new Response(body, {
      headers: {
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
        'content-type': 'application/json',
      },
    });
  });
  try {
    const s = h2Connect(port(l));
    const r = await h2Get(s, '/watch');
    assert.equal(r.status, 200);
    assert.equal(r.body, '{"n":0}\n{"n":1}\n{"n":2}\n');
    assert.equal(r.headers['connection'], undefined);
    const goaway = new Promise<void>((resolve) => s.once('goaway', () => resolve()));
    const c = await h2Get(s, '/close');
    assert.equal(c.body, 'bye');
    await goaway;
    s.close();
    // HTTP/1.1 keeps its headers.
    const h1 = await h1Get(port(l), '/watch');
    assert.equal(h1.headers['transfer-encoding'], 'chunked');
  } finally {
    await l.shutdown(1000);
  }
});

test('Transport.goaway() (probabilistic GOAWAY): the response still completes, then the session is told to go away', async () => {
  const l = await start({}, async (_r, t) => {
    t!.goaway!();
    await new Promise((r) => setTimeout(r, 50));
    return new Response('after goaway');
  });
  try {
    const s = h2Connect(port(l));
    const goaway = new Promise<void>((resolve) => s.once('goaway', () => resolve()));
    const r = await h2Get(s, '/');
    assert.equal(r.body, 'after goaway');
    await goaway;
    s.close();
    // HTTP/1.1 has no such hook.
    let hook: unknown = 'unset';
    const l1 = await start({}, async (_r, t) => {
      hook = t!.goaway;
      return new Response('x');
    });
    await h1Get(port(l1), '/');
    assert.equal(hook, undefined);
    await l1.shutdown(1000);
  } finally {
    await l.shutdown(1000);
  }
});

test('idle timeout: an HTTP/2 session without streams is closed; an active stream keeps it open; idle HTTP/1.1 closes', async () => {
  const l = await start(
    {},
    async (request) => {
      const ms = Number(new URL(request.url).searchParams.get('ms') ?? 0);
      await new Promise((r) => setTimeout(r, ms));
      return new Response('ok');
    },
    { idleTimeout: 300 },
  );
  try {
    const s = h2Connect(port(l));
    const closed = new Promise<number>((resolve) => s.once('close', () => resolve(performance.now())));
    // A request longer than the idle timeout: the session stays up while it runs.
    const t0 = performance.now();
    assert.equal((await h2Get(s, '/?ms=700')).body, 'ok');
    const done = performance.now();
    assert.ok(done - t0 >= 650);
    const at = await closed;
    assert.ok(at - done >= 250 && at - done < 2000, `closed ${at - done} ms after the last stream`);
    // HTTP/1.1 keep-alive idles out too, once its request is answered: a request longer than the
    // idle timeout, silent while it runs, keeps its connection.
    const sock = await handshake(port(l), { ALPNProtocols: ['http/1.1'] });
    let received = '';
    sock.on('data', (d: Buffer) => (received += d.toString('latin1')));
    const sockClosed = new Promise<number>((resolve) => sock.once('close', () => resolve(performance.now())));
    sock.write('GET /?ms=700 HTTP/1.1\r\nHost: x\r\n\r\n');
    const t1 = performance.now();
    while (!received.endsWith('ok') && performance.now() - t1 < 3000) await new Promise((r) => setTimeout(r, 10));
    const answered = performance.now();
    assert.match(received, /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nok$/);
    assert.ok(answered - t1 >= 650, `answered after ${answered - t1} ms`);
    const h1At = await sockClosed;
    assert.ok(h1At - answered >= 250 && h1At - answered < 3000, `closed ${h1At - answered} ms after the answer`);
  } finally {
    await l.shutdown(1000);
  }
});

test('graceful shutdown: GOAWAY, in-flight requests finish, new connections are refused', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const inFlight = new Promise<void>((r) => (entered = r));
  const l = await start({}, async (request) => {
    if (new URL(request.url).pathname === '/slow') {
      entered();
      await gate;
    }
    return new Response('done');
  });
  const p = port(l);
  const s = h2Connect(p);
  const goaway = new Promise<void>((resolve) => s.once('goaway', () => resolve()));
  const slow = h2Get(s, '/slow');
  await inFlight;
  const done = l.shutdown(5000);
  await l.stoppedListening;
  await goaway;
  await assert.rejects(
    new Promise((resolve, reject) => {
      const c = net.connect(p, '127.0.0.1', () => resolve(c));
      c.on('error', reject);
    }),
    { code: 'ECONNREFUSED' },
  );
  release();
  assert.equal((await slow).body, 'done');
  await done;
});

test('lightResponseHeader answers as response.headers.get, without materialising a lightweight Response when the header is absent', async () => {
  const { getRequestListener } = await import('@hono/node-server');
  getRequestListener(() => new Response(null)); // installs @hono/node-server's global Response
  const cases: [Response, string][] = [
    [new Response('x'), 'content-length'],
    [new Response('x'), 'content-type'],
    [new Response(null), 'content-type'],
    [new Response('x', { headers: { 'content-type': 'application/json' } }), 'content-length'],
    [new Response('x', { headers: { 'Content-Length': '1' } }), 'content-length'],
    [new Response('x', { headers: { 'content-length': ' 1 ' } }), 'content-length'],
    [new Response('x', { headers: new Headers({ 'content-length': '1' }) }), 'content-length'],
    [new Response('x', { headers: [['content-length', '1']] }), 'content-length'],
    [new Response(new ReadableStream(), { status: 201 }), 'content-length'],
  ];
  for (const [res, name] of cases) {
    const fresh = (): Response => res.clone();
    assert.equal(
      lightResponseHeader(res, name),
      fresh().headers.get(name),
      `${name} of ${JSON.stringify([...res.headers])}`,
    );
  }
});

test("fair dispatch: a burst of streams on one HTTP/2 connection does not hold up another connection's request", async () => {
  const order: string[] = [];
  // 1 ms of synchronous work per request: the burst alone keeps the event loop busy ~300 ms.
  const l = await start({ http2MaxStreamsPerConnection: 400 }, async (request) => {
    const t = performance.now();
    while (performance.now() - t < 1);
    order.push(new URL(request.url).pathname);
    return new Response('ok');
  });
  const flood = h2Connect(port(l));
  const other = h2Connect(port(l));
  try {
    await Promise.all([flood, other].map((s) => new Promise((r) => s.once('remoteSettings', r))));
    const burst = Array.from({ length: 300 }, (_, i) => h2Get(flood, `/flood/${i}`));
    await new Promise((r) => setTimeout(r, 30));
    const single = await h2Get(other, '/other');
    assert.equal(single.status, 200);
    // Without fair dispatch all 300 would run first (one socket read carries the whole burst).
    const at = order.indexOf('/other');
    assert.ok(at >= 0 && at < 150, `the other connection's request ran ${at}th of ${order.length}`);
    const results = await Promise.all(burst);
    assert.ok(results.every((r) => r.status === 200 && r.body === 'ok'));
    assert.equal(order.length, 301);
  } finally {
    flood.destroy();
    other.destroy();
    await l.shutdown(1000);
  }
});

test('HTTP/2: a response ends with its last DATA frame (END_STREAM), without an empty trailing frame', async () => {
  const l = await start({}, async () => new Response('hello'));
  const sock = await handshake(port(l), { ALPNProtocols: ['h2'] });
  try {
    assert.equal(sock.alpnProtocol, 'h2');
    const headers = hpack([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/x'],
      [':authority', '127.0.0.1'],
    ]);
    sock.write(
      Buffer.concat([
        Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
        frame(4, 0, 0, Buffer.alloc(0)),
        frame(1, 0x4 | 0x1, 1, headers),
      ]),
    );
    // Frames of stream 1 until END_STREAM.
    const frames: { type: number; flags: number; length: number }[] = [];
    let buf = Buffer.alloc(0);
    await new Promise<void>((resolve, reject) => {
      sock.on('data', (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 9 && buf.length >= 9 + buf.readUIntBE(0, 3)) {
          const length = buf.readUIntBE(0, 3);
          const f = { type: buf[3]!, flags: buf[4]!, stream: buf.readUInt32BE(5) & 0x7fffffff, length };
          buf = buf.subarray(9 + length);
          if (f.stream !== 1) continue;
          frames.push(f);
          if (f.flags & 0x1) resolve();
        }
      });
      sock.once('error', reject);
      sock.once('close', () => reject(new Error('closed before END_STREAM')));
    });
    // HEADERS (type 1) then one DATA frame (type 0) carrying the body and END_STREAM.
    assert.deepEqual(
      frames.map((f) => [f.type, f.flags & 0x1, f.length > 0]),
      [
        [1, 0, true],
        [0, 1, true],
      ],
    );
  } finally {
    sock.destroy();
    await l.shutdown(1000);
  }
});

test('HTTP/2: a client that stops reading and then drops the connection is found by an unanswered PING; a live client answers and stays', async () => {
  const signals: AbortSignal[] = [];
  const l = await start(
    {},
    async (request) => {
      signals.push(request.signal);
      let n = 0;
      // Far more than the socket buffers hold: the server's writes stay pending once the client stops reading.
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (n++ > 2000) return c.close();
          c.enqueue(new Uint8Array(65536));
        },
      });
      return new Response(body);
    },
    { pingInterval: 200 },
  );
  const live = h2Connect(port(l));
  try {
    const sock = await handshake(port(l), { ALPNProtocols: ['h2'] });
    const headers = hpack([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/big'],
      [':authority', '127.0.0.1'],
    ]);
    // The largest windows, so the server writes until the socket buffers are full.
    const settings = Buffer.alloc(6);
    settings.writeUInt16BE(4, 0);
    settings.writeUInt32BE(0x7fffffff, 2);
    const windowUpdate = Buffer.alloc(4);
    windowUpdate.writeUInt32BE(0x7fffffff - 65535, 0);
    const frames = [
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'),
      frame(4, 0, 0, settings),
      frame(8, 0, 0, windowUpdate),
    ];
    for (let i = 0; i < 10; i++) frames.push(frame(1, 0x4 | 0x1, 1 + 2 * i, headers));
    sock.write(Buffer.concat(frames));
    sock.pause();
    while (signals.length < 10) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    // Closed with data unread: the kernel resets the connection.
    sock.destroy();
    const deadline = Date.now() + 5000;
    while (signals.some((s) => !s.aborted) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(signals.filter((s) => s.aborted).length, 10, 'every stream of the dead connection ends');
    // The live session answered every PING meanwhile and still serves.
    assert.equal(live.closed || live.destroyed, false);
    const r = await new Promise<number>((resolve, reject) => {
      const req = live.request({ ':path': '/big', ':method': 'HEAD' });
      req.on('response', (h) => resolve(Number(h[':status'])));
      req.on('error', reject);
      req.end();
    });
    assert.equal(r, 200);
  } finally {
    live.close();
    await l.shutdown(1000);
  }
});
