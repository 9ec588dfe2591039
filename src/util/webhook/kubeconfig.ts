// The kubeconfig of a webhook (k8s.io/apiserver/pkg/util/webhook/authentication.go, with
// clientcmd's loading rules for an explicit path): the current context's cluster and user →
// where to POST, with which credentials and TLS material. Every webhook (audit, token review,
// subject access review) loads its kubeconfig here.

import { parseDocument } from 'yaml';
import type { FileSystem } from '../filesystem.ts';
import { goQuote } from '../go.ts';
import { decodeBase64Text, encodeBase64Text } from '../base64.ts';

/** TLS material from the kubeconfig, for a platform fetch that can use it. */
export interface WebhookTLSConfig {
  /** PEM. */
  caData?: string;
  certData?: string;
  keyData?: string;
  insecureSkipTLSVerify?: boolean;
  serverName?: string;
}

/** Where and how to reach a webhook. */
export interface WebhookClientConfig {
  server: string;
  /** Authorization header value (`Bearer <token>` or `Basic …`), if any. */
  authorization?: string;
  tls: WebhookTLSConfig;
}

export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

type Obj = Record<string, unknown>;

function entry(list: unknown, name: string): Obj | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find((e) => e && typeof e === 'object' && (e as Obj).name === name) as Obj | undefined;
}

function field(e: Obj | undefined, key: string): Obj | undefined {
  const v = e?.[key];
  return v && typeof v === 'object' ? (v as Obj) : undefined;
}

function str(o: Obj | undefined, k: string): string | undefined {
  const v = o?.[k];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Parses kubeconfig text. `readText` reads files it references (certificate-authority,
 * client-certificate, client-key, tokenFile), resolved relative to `path`.
 */
export async function parseKubeconfig(
  text: string,
  path: string,
  readText: (path: string) => Promise<string>,
): Promise<WebhookClientConfig> {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length) {
    throw new KubeconfigError(
      `error loading config file ${goQuote(path)}: yaml: ${doc.errors[0]!.message.split('\n')[0]}`,
    );
  }
  const cfg = (doc.toJS() ?? {}) as Obj;
  const current = typeof cfg['current-context'] === 'string' ? (cfg['current-context'] as string) : '';
  if (!current) {
    throw new KubeconfigError(
      'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable',
    );
  }
  const context = field(entry(cfg.contexts, current), 'context');
  const problems: string[] = [];
  if (!context) problems.push(`context was not found for specified context: ${current}`);
  const clusterName = str(context, 'cluster') ?? '';
  const cluster = field(entry(cfg.clusters, clusterName), 'cluster');
  if (context && !cluster) problems.push(`cluster ${goQuote(clusterName)} not found`);
  if (!str(cluster, 'server')) problems.push('no server found for cluster ' + goQuote(clusterName));
  if (problems.length) {
    throw new KubeconfigError(
      `invalid configuration: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`,
    );
  }
  const userName = str(context, 'user');
  const user = userName ? field(entry(cfg.users, userName), 'user') : undefined;
  const dir = path.replace(/[^/]*$/, '');
  const read = (p: string) => readText(p.startsWith('/') ? p : dir + p);
  const pem = async (o: Obj | undefined, dataKey: string, fileKey: string) => {
    const data = str(o, dataKey);
    if (data) return decodeBase64Text(data);
    const file = str(o, fileKey);
    return file ? read(file) : undefined;
  };

  const tls: WebhookTLSConfig = {};
  const caData = await pem(cluster, 'certificate-authority-data', 'certificate-authority');
  if (caData) tls.caData = caData;
  if (cluster?.['insecure-skip-tls-verify'] === true) tls.insecureSkipTLSVerify = true;
  const serverName = str(cluster, 'tls-server-name');
  if (serverName) tls.serverName = serverName;
  const certData = await pem(user, 'client-certificate-data', 'client-certificate');
  if (certData) tls.certData = certData;
  const keyData = await pem(user, 'client-key-data', 'client-key');
  if (keyData) tls.keyData = keyData;

  let authorization: string | undefined;
  const tokenFile = str(user, 'tokenFile');
  const token = str(user, 'token') ?? (tokenFile ? (await read(tokenFile)).trim() : undefined);
  if (token) authorization = `Bearer ${token}`;
  else if (str(user, 'username'))
    authorization = `Basic ${encodeBase64Text(`${str(user, 'username')}:${str(user, 'password') ?? ''}`)}`;
  return { server: str(cluster, 'server')!, ...(authorization ? { authorization } : {}), tls };
}

/** Loads a webhook's kubeconfig file (clientcmd with an explicit path: the current context). */
export async function loadWebhookKubeconfig(fs: FileSystem, path: string): Promise<WebhookClientConfig> {
  const readText = async (p: string) => new TextDecoder().decode(await fs.readFile(p));
  return parseKubeconfig(await readText(path), path, readText);
}
