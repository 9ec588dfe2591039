// EncryptionConfiguration (apiserver.config.k8s.io/v1; k8s.io/apiserver/pkg/server/options/
// encryptionconfig/config.go and pkg/apis/apiserver/validation/validation_encryption.go): which
// resources are encrypted at rest and how. Per resource, the first provider's first key writes;
// every listed key reads. Values carry `k8s:enc:<provider>:v1:<key name>:` before the ciphertext.

import { parse as parseYAML } from 'yaml';
import type { GroupResource } from '../../endpoints/apierrors.ts';
import { decodeBase64 } from '../../util/base64.ts';
import { aggregateMessage, invalid, Path, required, type ErrorList } from '../../util/validation/field.ts';
import { newCBCTransformer, newGCMTransformer } from './encrypt/aes.ts';
import { newSecretboxTransformer } from './encrypt/secretbox.ts';
import { identityTransformer, newPrefixTransformers, type PrefixTransformer, type Transformer } from './transformer.ts';

interface Key {
  name?: string;
  secret?: string;
}
interface ProviderConfiguration {
  aesgcm?: { keys?: Key[] };
  aescbc?: { keys?: Key[] };
  secretbox?: { keys?: Key[] };
  identity?: object;
  kms?: object;
}
interface ResourceConfiguration {
  resources?: string[];
  providers?: ProviderConfiguration[];
}
export interface EncryptionConfiguration {
  apiVersion?: string;
  kind?: string;
  resources?: ResourceConfiguration[];
}

const aesKeySizes = [16, 24, 32];
const secretBoxKeySizes = [32];
const root = Path.of('resources');
const atLeastOne = (what: string) => `at least one ${what} is required`;

/** The transformer of each configured resource; `*` stands for any resource (and group). */
export type TransformerOverrides = Map<string, Transformer>;

const grKey = (gr: GroupResource) => `${gr.resource}.${gr.group}`;

/** schema.ParseGroupResource: `secrets`, `deployments.apps`, `*.apps`, `*.*`. */
function parseGroupResource(s: string): GroupResource {
  const i = s.indexOf('.');
  return i < 0 ? { group: '', resource: s } : { group: s.slice(i + 1), resource: s.slice(0, i) };
}

/** ValidateEncryptionConfiguration (the providers and keys this server supports). */
export function validateEncryptionConfiguration(c: EncryptionConfiguration): ErrorList {
  const errs: ErrorList = [];
  if (!c.resources?.length) return [required(root, atLeastOne('resources'))];
  c.resources.forEach((conf, i) => {
    const r = root.index(i).child('resources');
    const p = root.index(i).child('providers');
    if (!conf.resources?.length) errs.push(required(r, atLeastOne(String(r))));
    if (!conf.providers?.length) errs.push(required(p, atLeastOne(String(p))));
    (conf.providers ?? []).forEach((provider, j) => {
      const path = p.index(j);
      const found = (['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'] as const).filter((k) => provider[k] != null);
      if (found.length === 0)
        errs.push(
          invalid(
            path,
            provider,
            'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
          ),
        );
      else if (found.length > 1)
        errs.push(
          invalid(
            path,
            provider,
            'more than one provider specified in a single element, should split into different list elements',
          ),
        );
      else if (provider.kms)
        errs.push(invalid(path.child('kms'), 'REDACTED', 'KMS providers are not supported by this server'));
      else if (provider.aesgcm)
        errs.push(...validateKeys(provider.aesgcm.keys, path.child('aesgcm', 'keys'), aesKeySizes));
      else if (provider.aescbc)
        errs.push(...validateKeys(provider.aescbc.keys, path.child('aescbc', 'keys'), aesKeySizes));
      else if (provider.secretbox)
        errs.push(...validateKeys(provider.secretbox.keys, path.child('secretbox', 'keys'), secretBoxKeySizes));
    });
  });
  return errs;
}

function validateKeys(keys: Key[] | undefined, path: Path, sizes: number[]): ErrorList {
  if (!keys?.length) return [required(path, atLeastOne('keys'))];
  const errs: ErrorList = [];
  keys.forEach((key, i) => {
    const p = path.index(i);
    if (!key.name) errs.push(required(p.child('name'), 'name is a mandatory field for a key'));
    if (!key.secret) {
      errs.push(required(p.child('secret'), 'secret is a mandatory field for a key'));
      return;
    }
    let secret: Uint8Array;
    try {
      secret = decodeBase64(key.secret);
    } catch {
      errs.push(invalid(p.child('secret'), 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length))
      errs.push(
        invalid(
          p.child('secret'),
          'REDACTED',
          `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`,
        ),
      );
  });
  return errs;
}

/** The prefix transformers of one provider, in key order. */
function providerTransformers(provider: ProviderConfiguration): PrefixTransformer[] {
  const enc = new TextEncoder();
  const keyed = (name: string, keys: Key[] | undefined, make: (key: Uint8Array) => Transformer) =>
    (keys ?? []).map((k) => ({
      prefix: enc.encode(`k8s:enc:${name}:v1:${k.name}:`),
      transformer: make(decodeBase64(k.secret!)),
    }));
  if (provider.aesgcm) return keyed('aesgcm', provider.aesgcm.keys, newGCMTransformer);
  if (provider.aescbc) return keyed('aescbc', provider.aescbc.keys, newCBCTransformer);
  if (provider.secretbox) return keyed('secretbox', provider.secretbox.keys, newSecretboxTransformer);
  return [{ prefix: new Uint8Array(0), transformer: identityTransformer }];
}

/**
 * LoadEncryptionConfig: parses and validates the file's text; returns the transformer of each
 * resource named (the first rule naming a resource wins).
 */
export function loadEncryptionConfig(text: string): TransformerOverrides {
  let c: EncryptionConfiguration;
  try {
    c = (parseYAML(text) ?? {}) as EncryptionConfiguration;
  } catch (err) {
    throw new Error(`error while parsing file: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof c !== 'object' || Array.isArray(c)) throw new Error('error while parsing file: not an object');
  if (c.kind !== 'EncryptionConfiguration')
    throw new Error(`error while parsing file: got unexpected object kind ${JSON.stringify(c.kind ?? '')}`);
  if (c.apiVersion !== 'apiserver.config.k8s.io/v1')
    throw new Error(`error while parsing file: got unexpected apiVersion ${JSON.stringify(c.apiVersion ?? '')}`);
  const errs = validateEncryptionConfiguration(c);
  if (errs.length) throw new Error(`error while parsing file: ${aggregateMessage(errs)}`);
  const out: TransformerOverrides = new Map();
  for (const conf of c.resources!) {
    const transformer = newPrefixTransformers(
      new Error('no matching prefix found'),
      ...conf.providers!.flatMap(providerTransformers),
    );
    for (const r of conf.resources!) {
      const key = grKey(parseGroupResource(r));
      if (!out.has(key)) out.set(key, transformer);
    }
  }
  return out;
}

/** The transformer of a resource: exact, then `*.<group>`, then `*.*` (storage factory overrides). */
export function transformerFor(overrides: TransformerOverrides, gr: GroupResource): Transformer | undefined {
  return overrides.get(grKey(gr)) ?? overrides.get(grKey({ group: gr.group, resource: '*' })) ?? overrides.get('*.*');
}
