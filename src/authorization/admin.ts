// The secure default's admin credential (ours; kube-apiserver has no such default): when the
// server is started without any authentication or authorization flag and terminates TLS itself,
// a bearer token for `kubernetes-admin` in group `system:masters` is created (reused across
// restarts), an admin kubeconfig is written next to the serving certificate
// (`<cert-dir>/admin.kubeconfig`, mode 0600), and the log says how to use it.

import { parse as parseYAML } from 'yaml';
import type {
  AuthenticatorResponse,
  RequestAuthenticator,
  TokenAuthenticator,
} from '../authentication/authenticator.ts';
import { BearerTokenAuthenticator } from '../authentication/bearertoken.ts';
import { unionBeforeAnonymous } from '../authentication/union.ts';
import { timingSafeEqual } from '../authentication/static-token.ts';
import type { FileSystem } from '../util/filesystem.ts';
import { encodeBase64Text, encodeBase64URL } from '../util/base64.ts';

export const adminUserName = 'kubernetes-admin';
export const adminKubeconfigName = 'admin.kubeconfig';

/** The admin token as a token authenticator (constant-time comparison). */
class AdminToken implements TokenAuthenticator {
  private readonly token: string;
  constructor(token: string) {
    this.token = token;
  }
  async authenticateToken(token: string): Promise<AuthenticatorResponse | null> {
    return this.authenticateTokenFast(token);
  }
  authenticateTokenFast(token: string): AuthenticatorResponse | null {
    if (!timingSafeEqual(token, this.token)) return null;
    return { user: { name: adminUserName, uid: '', groups: ['system:masters', 'system:authenticated'] } };
  }
}

/**
 * The admin token's bearer authenticator in front of `next`. It is a bearer-token authenticator
 * like any other: a token that neither it nor `next` accepts is "invalid bearer token" (401),
 * never anonymous, so it joins `next`'s chain in front of the anonymous fallback.
 */
export function adminTokenAuthenticator(token: string, next: RequestAuthenticator | undefined): RequestAuthenticator {
  const admin = new BearerTokenAuthenticator(new AdminToken(token), () => {});
  return next ? unionBeforeAnonymous(admin, next) : admin;
}

/** A random 256-bit token, base64url. */
export function newAdminToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return encodeBase64URL(b);
}

/** The kubeconfig kubectl uses with the admin token. */
export function adminKubeconfig(server: string, caPEM: string | undefined, token: string): string {
  return kubeconfigText(server, caPEM === undefined ? undefined : encodeBase64Text(caPEM), token);
}

// The document yaml.stringify writes for this shape, as a template: the yaml package's first
// parse or stringify costs milliseconds of start-up. A value is written plain when YAML's core
// schema reads it back as that string (as yaml.stringify does), otherwise as a JSON string, which
// YAML reads as a double-quoted scalar.
const plainText = /^(?:[\w]|-(?=.))[\w.:/[\]=+-]*$/;
const coreSchemaNonString =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const scalar = (v: string) => (plainText.test(v) && !coreSchemaNonString.test(v) ? v : JSON.stringify(v));

function kubeconfigText(server: string, caData: string | undefined, token: string): string {
  const ctx = `${adminUserName}@edge-apiserver`;
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '  - name: edge-apiserver',
    '    cluster:',
    `      server: ${scalar(server)}`,
    ...(caData === undefined ? [] : [`      certificate-authority-data: ${scalar(caData)}`]),
    'users:',
    `  - name: ${adminUserName}`,
    '    user:',
    `      token: ${scalar(token)}`,
    'contexts:',
    `  - name: ${ctx}`,
    '    context:',
    '      cluster: edge-apiserver',
    `      user: ${adminUserName}`,
    `current-context: ${ctx}`,
    '',
  ].join('\n');
}

const tokenPattern = /^[A-Za-z0-9_-]{20,}$/;

/** The token of a kubeconfig exactly as kubeconfigText writes it (no YAML parser needed). */
function ownKubeconfigToken(text: string): string | undefined {
  const server = /^ {6}server: (\S+)$/m.exec(text)?.[1];
  const ca = /^ {6}certificate-authority-data: (\S+)$/m.exec(text)?.[1];
  const token = /^ {6}token: (\S+)$/m.exec(text)?.[1];
  if (server === undefined || token === undefined || !tokenPattern.test(token)) return undefined;
  return kubeconfigText(server, ca, token) === text ? token : undefined;
}

/** The token of an existing admin kubeconfig (restarts keep the credential), if readable. */
export async function existingAdminToken(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    const text = new TextDecoder().decode(await fs.readFile(path));
    const own = ownKubeconfigToken(text);
    if (own) return own;
    const doc = parseYAML(text) as {
      users?: { user?: { token?: unknown } }[];
    } | null;
    const t = doc?.users?.[0]?.user?.token;
    return typeof t === 'string' && tokenPattern.test(t) ? t : undefined;
  } catch {
    return undefined;
  }
}

/** `https://host:port` for a local kubectl: the bind address, or localhost (in the generated cert's SANs). */
export function localServerURL(bindAddress: string, port: number): string {
  const unspecified = bindAddress === '' || bindAddress === '0.0.0.0' || bindAddress === '::';
  const host = unspecified ? 'localhost' : bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress;
  return `https://${host}:${port}`;
}
