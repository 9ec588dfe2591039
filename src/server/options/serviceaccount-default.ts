// The secure default's service-account issuer. kube-apiserver refuses to start without
// --service-account-issuer and --service-account-signing-key-file
// (pkg/controlplane/apiserver/options/validation.go validateServiceAccountTokenSigningConfig);
// here, where this process terminates TLS and none of the service-account flags is given, a
// signing key is generated into --cert-dir (sa.key, kept across restarts like the serving
// certificate) and the issuer is kubeadm's default, so service-account tokens and TokenRequest
// (`kubectl create token`) work from the first start.

import type { FileSystem } from '../../util/filesystem.ts';
import { encodePEM } from '../dynamiccertificates/pem.ts';

/** kubeadm's default --service-account-issuer (cmd/kubeadm/app/phases/controlplane/manifests.go). */
export const defaultServiceAccountIssuer = 'https://kubernetes.default.svc.cluster.local';
/** The generated key's file name in --cert-dir (kubeadm's sa.key). */
export const serviceAccountKeyName = 'sa.key';

/**
 * The path of `<certDir>/sa.key`, generating an ECDSA P-256 key (ES256 tokens) there unless a
 * readable one exists; undefined when the file system cannot write it.
 */
export async function ensureServiceAccountKey(fs: FileSystem, certDir: string): Promise<string | undefined> {
  const dir = certDir.replace(/\/+$/, '') || '/';
  const path = `${dir === '/' ? '' : dir}/${serviceAccountKeyName}`;
  try {
    if (new TextDecoder().decode(await fs.readFile(path)).includes('PRIVATE KEY-----')) return path;
  } catch {
    // not there yet
  }
  if (!fs.writeFile) return undefined;
  const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey('pkcs8', pair.privateKey));
  await fs.mkdirAll?.(dir, 0o755);
  await fs.writeFile(path, new TextEncoder().encode(encodePEM('PRIVATE KEY', pkcs8)), 0o600);
  return path;
}
