import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as nodeCrypto from 'node:crypto';
import * as peculiar from '@peculiar/x509';
import * as x509 from './x509.ts';
import { DERError, encodeBoolean, encodeInt, encodeSequence, encodeTLV } from './der.ts';

const rsa = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) };
const gen = (alg: object) =>
  crypto.subtle.generateKey(alg as EcKeyGenParams, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
const KU = x509.KeyUsageFlags;

async function caAndLeaf(caAlg: object, leafAlg: object) {
  const caKeys = await gen(caAlg);
  const keys = await gen(leafAlg);
  const notBefore = new Date('2026-01-02T03:04:05Z');
  const notAfter = new Date('2051-01-02T03:04:05Z');
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=test CA, OU=Unit+O=Example, C=DE',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: { name: caKeys.privateKey.algorithm.name, hash: 'SHA-384' } as Algorithm,
    extensions: [
      new x509.KeyUsagesExtension(KU.keyCertSign | KU.digitalSignature | KU.cRLSign, true),
      new x509.BasicConstraintsExtension(true, 1, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: 'f00d',
    subject: [{ CN: ['leaf@1767323045'] }, { O: ['system:masters'] }, { O: ['dev'] }],
    issuer: ca.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: caKeys.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.KeyUsagesExtension(KU.digitalSignature | KU.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.BasicConstraintsExtension(false, undefined, true),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: 'kubernetes.default' },
        { type: 'ip', value: '10.0.0.1' },
        { type: 'ip', value: '2001:db8::1' },
        { type: 'ip', value: '::ffff:192.0.2.1' },
        { type: 'email', value: 'a@example.com' },
        { type: 'url', value: 'spiffe://cluster/ns/x' },
      ]),
    ],
  });
  return { ca, leaf, caKeys, keys };
}

test('generated certificates read the same through node:crypto and @peculiar/x509 (RSA CA, EC leaf)', async () => {
  const { ca, leaf } = await caAndLeaf({ ...rsa, hash: 'SHA-256' }, { name: 'ECDSA', namedCurve: 'P-256' });
  const n = new nodeCrypto.X509Certificate(leaf.rawData);
  const nca = new nodeCrypto.X509Certificate(ca.toString('pem'));
  assert.equal(n.subject, 'CN=leaf@1767323045\nO=system:masters\nO=dev');
  assert.equal(nca.subject, 'CN=test CA\nOU=Unit + O=Example\nC=DE');
  assert.equal(n.issuer, nca.subject);
  assert.equal(n.serialNumber, 'F00D');
  assert.equal(new Date(n.validFrom).toISOString(), '2026-01-02T03:04:05.000Z');
  assert.equal(new Date(n.validTo).toISOString(), '2051-01-02T03:04:05.000Z');
  assert.equal(
    n.subjectAltName,
    'DNS:kubernetes.default, IP Address:10.0.0.1, IP Address:2001:DB8:0:0:0:0:0:1, IP Address:192.0.2.1, email:a@example.com, URI:spiffe://cluster/ns/x',
  );
  assert.deepEqual(n.keyUsage, [x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]);
  assert.equal(n.ca, false);
  assert.equal(nca.ca, true);
  assert.ok(n.checkIssued(nca));
  assert.ok(n.verify(nca.publicKey));
  assert.ok(nca.verify(nca.publicKey));
  assert.equal(n.publicKey.asymmetricKeyType, 'ec');
  assert.deepEqual(
    new Uint8Array(n.publicKey.export({ type: 'spki', format: 'der' })),
    new Uint8Array(leaf.publicKey.rawData),
  );
  // Our parser on our output.
  assert.equal(leaf.subject, 'CN=leaf@1767323045, O=system:masters, O=dev');
  assert.equal(ca.subject, 'CN=test CA, OU=Unit+O=Example, C=DE');
  assert.equal(leaf.issuer, ca.subject);
  assert.deepEqual(leaf.subjectName.getField('O'), ['system:masters', 'dev']);
  assert.equal(leaf.serial, 0xf00dn);
  assert.equal(ca.getExtension(x509.BasicConstraintsExtension)!.pathLength, 1);
  assert.equal(leaf.getExtension(x509.KeyUsagesExtension)!.usages, KU.digitalSignature | KU.keyEncipherment);
  assert.equal(
    leaf.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId,
    ca.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId,
  );
  assert.deepEqual(
    leaf.getExtension(x509.SubjectAlternativeNameExtension)!.names.items.map((i) => `${i.type}:${i.value}`),
    [
      'dns:kubernetes.default',
      'ip:10.0.0.1',
      'ip:2001:db8::1',
      'ip:192.0.2.1',
      'email:a@example.com',
      'url:spiffe://cluster/ns/x',
    ],
  );
  assert.ok(await leaf.verify({ publicKey: ca, signatureOnly: true }));
  assert.ok(await ca.verify({ signatureOnly: true }));
  assert.equal(await leaf.verify({ publicKey: ca }), true);
  assert.equal(await leaf.verify({ publicKey: ca, date: new Date('2099-01-01') }), false);
  // @peculiar/x509 agrees on every field and extension.
  const p = new peculiar.X509Certificate(leaf.rawData);
  assert.equal(p.subject, leaf.subject);
  assert.equal(p.serialNumber, leaf.serialNumber);
  assert.equal(p.getExtension(peculiar.SubjectKeyIdentifierExtension), null);
  assert.equal(
    p.getExtension(peculiar.AuthorityKeyIdentifierExtension)!.keyId,
    leaf.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId,
  );
  assert.equal(p.getExtension(peculiar.KeyUsagesExtension)!.usages, KU.digitalSignature | KU.keyEncipherment);
  assert.ok(await p.verify({ publicKey: new peculiar.X509Certificate(ca.rawData), signatureOnly: true }));
  // SKID as crypto/x509 computes it: SHA-1 of the subjectPublicKey bits.
  const bits = ca.publicKey.keyBits;
  assert.equal(
    ca.getExtension(x509.SubjectKeyIdentifierExtension)!.keyId,
    nodeCrypto.createHash('sha1').update(bits).digest('hex'),
  );
});

test('signatures: RSA PKCS#1 v1.5 SHA-256/384/512, RSA-PSS, ECDSA P-256/P-384, Ed25519 (made by @peculiar/x509 or us)', async () => {
  const cases: [string, object, object][] = [
    ['RSA SHA-256', { ...rsa, hash: 'SHA-256' }, {}],
    ['RSA SHA-384', { ...rsa, hash: 'SHA-384' }, {}],
    ['RSA SHA-512', { ...rsa, hash: 'SHA-512' }, {}],
    ['ECDSA P-256', { name: 'ECDSA', namedCurve: 'P-256' }, { hash: 'SHA-256' }],
    ['ECDSA P-384', { name: 'ECDSA', namedCurve: 'P-384' }, { hash: 'SHA-384' }],
    ['Ed25519', { name: 'Ed25519' }, {}],
  ];
  for (const [label, alg, sign] of cases) {
    const keys = await gen(alg);
    const mine = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=${label}`,
      keys,
      signingAlgorithm: { name: keys.privateKey.algorithm.name, ...sign },
    });
    assert.ok(
      new nodeCrypto.X509Certificate(mine.rawData).verify(new nodeCrypto.X509Certificate(mine.rawData).publicKey),
      label,
    );
    assert.ok(await mine.verify({ signatureOnly: true }), label);
    const theirs = await peculiar.X509CertificateGenerator.createSelfSigned({
      name: `CN=${label}`,
      keys,
      signingAlgorithm: { name: keys.privateKey.algorithm.name, ...sign },
    });
    assert.ok(await new x509.X509Certificate(new Uint8Array(theirs.rawData)).verify({ signatureOnly: true }), label);
  }
  const pss = { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
  const pssKeys = await gen(pss);
  const pssCert = await peculiar.X509CertificateGenerator.createSelfSigned({
    name: 'CN=pss',
    keys: pssKeys,
    signingAlgorithm: { name: 'RSA-PSS', hash: 'SHA-256', saltLength: 32 } as Algorithm,
  });
  const parsed = new x509.X509Certificate(new Uint8Array(pssCert.rawData));
  assert.deepEqual(parsed.signatureAlgorithm, { name: 'RSA-PSS', hash: 'SHA-256', saltLength: 32 });
  assert.ok(await parsed.verify({ signatureOnly: true }));
});

test('bad signatures and wrong signers verify false, never throw', async () => {
  const { ca, leaf } = await caAndLeaf({ name: 'ECDSA', namedCurve: 'P-256' }, { name: 'ECDSA', namedCurve: 'P-256' });
  const other = await caAndLeaf({ ...rsa, hash: 'SHA-256' }, { name: 'ECDSA', namedCurve: 'P-256' });
  assert.equal(await leaf.verify({ publicKey: other.ca, signatureOnly: true }), false);
  assert.equal(await leaf.verify({ publicKey: leaf, signatureOnly: true }), false);
  const der = new Uint8Array(leaf.rawData);
  // Flip a bit of the signature's last byte, then of the TBS: both parse, neither verifies.
  const badSig = der.slice();
  badSig[badSig.length - 1]! ^= 1;
  assert.equal(await new x509.X509Certificate(badSig).verify({ publicKey: ca, signatureOnly: true }), false);
  const badTBS = der.slice();
  const at = der.indexOf(0x0a, 20); // a byte inside the TBS (the subject's or a SAN's text)
  badTBS[at]! ^= 0x20;
  const tampered = (() => {
    try {
      return new x509.X509Certificate(badTBS);
    } catch {
      return undefined;
    }
  })();
  if (tampered) assert.equal(await tampered.verify({ publicKey: ca, signatureOnly: true }), false);
  // An ECDSA signature that is not a valid ECDSA-Sig-Value.
  const rsaSigned = other.leaf; // signed by an RSA CA: an RSA key cannot check an ECDSA signature
  assert.equal(await rsaSigned.verify({ publicKey: ca, signatureOnly: true }), false);
});

test('malformed certificates: every truncation and every single-byte change throws DERError or parses — never a crash', async () => {
  const { leaf } = await caAndLeaf({ name: 'ECDSA', namedCurve: 'P-256' }, { name: 'ECDSA', namedCurve: 'P-256' });
  const der = new Uint8Array(leaf.rawData);
  for (let n = 0; n < der.length; n++)
    assert.throws(() => new x509.X509Certificate(der.subarray(0, n)), DERError, `prefix ${n}`);
  assert.throws(() => new x509.X509Certificate(new Uint8Array([...der, 0])), /trailing data/);
  for (let i = 0; i < der.length; i++) {
    for (const v of [0x00, 0xff, der[i]! ^ 0x80]) {
      const m = der.slice();
      m[i] = v;
      try {
        new x509.X509Certificate(m);
      } catch (err) {
        assert.ok(err instanceof DERError || /^x509: /.test((err as Error).message), `byte ${i}=${v}: ${String(err)}`);
      }
    }
  }
  assert.throws(
    () => new x509.X509Certificate('-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----'),
    DERError,
  );
  assert.throws(() => new x509.X509Certificate('no pem'), DERError);
  // Extension contents are checked too: a SAN IP of 5 bytes, a negative path length, a duplicate extension.
  const keys = await gen({ name: 'ECDSA', namedCurve: 'P-256' });
  const make = (extensions: x509.Extension[]) =>
    x509.X509CertificateGenerator.createSelfSigned({
      name: 'CN=x',
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as Algorithm,
      extensions,
    });
  await assert.rejects(
    make([new x509.Extension('2.5.29.17', false, encodeSequence(encodeTLV(0x87, new Uint8Array(5))))]),
    /cannot parse IP address of length 5/,
  );
  await assert.rejects(
    make([new x509.Extension('2.5.29.19', true, encodeSequence(encodeBoolean(true), encodeInt(-1)))]),
    /basic constraints/,
  );
  await assert.rejects(
    make([new x509.BasicConstraintsExtension(true), new x509.BasicConstraintsExtension(true)]),
    /duplicate extension/,
  );
});

test('names: string, JSON and DER forms; escaping; encodings as crypto/x509 chooses them', () => {
  const n = new x509.Name('CN=a\\,b, O="quoted, value", OU=x+OU=y, 0.9.2342.19200300.100.1.1=uid-1, CN=é@host');
  assert.deepEqual(n.getField('CN'), ['a,b', 'é@host']);
  assert.deepEqual(n.getField('O'), ['quoted, value']);
  assert.deepEqual(n.getField('0.9.2342.19200300.100.1.1'), ['uid-1']);
  assert.equal(n.toString(), 'CN=a\\,b, O=quoted\\, value, OU=x+OU=y, 0.9.2342.19200300.100.1.1=uid-1, CN=é@host');
  assert.deepEqual(new x509.Name(n.toString()).rawData, n.rawData);
  assert.deepEqual(new x509.Name([{ CN: ['x'] }]).rawData, new x509.Name('CN=x').rawData);
  // PrintableString when it can, UTF8String for '@' or non-ASCII (encoding/asn1 makeField).
  const tagOfValue = (s: string) => {
    const raw = new x509.Name(`CN=${s}`).rawData;
    return raw[raw.length - s.length - 2]; // tag, length, value
  };
  assert.equal(tagOfValue('abc'), 0x13);
  assert.equal(tagOfValue('10.0.0.1@1700000000'), 0x0c);
  // A multi-valued RDN is a SET OF: DER sorts its members by encoding.
  assert.equal(new x509.Name('CN=a\\,b+O=x, OU=\\ q\\ ').toString(), 'O=x+CN=a\\,b, OU=\\ q\\ ');
  assert.equal(
    new peculiar.Name(new x509.Name('O=x+CN=a\\,b, OU=\\ q\\ ').rawData).toString(),
    'O=x+CN=a\\,b, OU=\\ q\\ ',
  );
  assert.throws(() => new x509.Name('CN'), /invalid name/);
  assert.throws(() => new x509.Name('XX=1'), /unknown name attribute/);
});

test('PEM: 64 columns, no trailing newline, as @peculiar/x509 wrote it', () => {
  const data = new Uint8Array(100).map((_, i) => i);
  assert.equal(x509.PemConverter.encode(data, 'X'), peculiar.PemConverter.encode(data.buffer, 'X'));
});

test('real-world certificates: every system root parses and reads as node:crypto reads it', async (t) => {
  const { readFileSync, existsSync } = await import('node:fs');
  const file = '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(file)) return t.skip(`${file} not found`);
  const blocks =
    readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  let verified = 0;
  for (const pem of blocks) {
    const mine = new x509.X509Certificate(pem);
    const n = new nodeCrypto.X509Certificate(pem);
    assert.equal(mine.serial, BigInt('0x' + n.serialNumber), mine.subject);
    assert.equal(mine.notBefore.getTime(), new Date(n.validFrom).getTime(), mine.subject);
    assert.equal(mine.notAfter.getTime(), new Date(n.validTo).getTime(), mine.subject);
    assert.equal(mine.subjectName.getField('CN')[0], /^CN=(.*)$/m.exec(n.subject)?.[1], mine.subject);
    assert.equal(!!mine.getExtension(x509.BasicConstraintsExtension)?.ca, n.ca, mine.subject);
    // SHA-1 signatures are not supported (nor by crypto/x509 since Go 1.18); the others self-verify.
    if (mine.signatureAlgorithm) {
      assert.ok(await mine.verify({ signatureOnly: true }), mine.subject);
      verified++;
    }
  }
  assert.ok(verified > 0);
});
