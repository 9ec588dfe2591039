// The serviceaccounts/token subresource (TokenRequest; kubernetes
// pkg/registry/core/serviceaccount/storage/token.go, validation from
// pkg/apis/authentication/validation): mints a bound token for an existing ServiceAccount with
// the requested audiences (default: the API audiences) and lifetime (default 1 h, at least 10
// minutes, at most 2^32 s, cut to --service-account-max-token-expiration with a warning),
// optionally bound to a Secret. `kubectl create token` posts here.

import { newBadRequest, newConflict, newInvalid, newNotFound } from '../../endpoints/apierrors.ts';
import { invalid, Path, type ErrorList } from '../../util/validation/field.ts';
import { mintServiceAccountToken } from '../../authentication/serviceaccount.ts';
import type { SigningKey } from '../../authentication/keys.ts';
import type { KubeObject } from '../generic/store.ts';
import { formatTime } from '../../util/metatime.ts';
import { formatGoDuration } from '../../util/duration.ts';

/** token.WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds (pod-bound tokens only). */
export const warnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
export const expirationExtensionSeconds = 24 * 365 * 60 * 60;
const minTokenAgeSeconds = 10 * 60;
const maxTokenAgeSeconds = 2 ** 32;

/**
 * The completion of --service-account-max-token-expiration (kube-apiserver's
 * completeServiceAccountOptions, pkg/controlplane/apiserver/options/options.go): 0 is no limit;
 * anything else must lie in [1h, 2^32 s] (else upstream's error, which stops the server); with
 * --service-account-extend-token-expiration (default true) a maximum shorter than the extension
 * windows is warned about. Returns the maximum in seconds.
 */
export function completeMaxTokenExpiration(
  maxNanos: number,
  extendExpiration: boolean,
  warn: (message: string) => void,
): number {
  if (maxNanos === 0) return 0;
  const second = 1e9;
  if (maxNanos < 3600 * second || maxNanos > maxTokenAgeSeconds * second)
    throw new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  if (extendExpiration) {
    const current = formatGoDuration(maxNanos);
    if (maxNanos < warnOnlyBoundTokenExpirationSeconds * second)
      warn(
        `service-account-extend-token-expiration is true, in order to correctly trigger safe transition logic, service-account-max-token-expiration must be set longer than ${warnOnlyBoundTokenExpirationSeconds} seconds (currently ${current})`,
      );
    if (maxNanos < expirationExtensionSeconds * second)
      warn(
        `service-account-extend-token-expiration is true, enabling tokens valid up to ${expirationExtensionSeconds} seconds, which is longer than service-account-max-token-expiration set to ${current}`,
      );
  }
  return Math.floor(maxNanos / second);
}

/** What the token endpoint signs with (the service-account issuer's configuration). */
export interface TokenIssuer {
  /** `iss`: the first `--service-account-issuer`. */
  issuer: string;
  /** `--service-account-signing-key-file`. */
  signingKey: SigningKey;
  /** The API audiences (`--api-audiences`, default the issuer): the default audiences of a request. */
  apiAudiences: string[];
  /** `--service-account-max-token-expiration` in seconds; 0: no limit. */
  maxExpirationSeconds: number;
  /** `--service-account-extend-token-expiration` (applies to pod-bound tokens, which this server cannot mint). */
  extendExpiration: boolean;
}

/** Reads the objects a request names (the registry Stores, through the watch cache). */
export interface TokenRequestLookups {
  getServiceAccount(namespace: string, name: string): Promise<KubeObject>;
  getSecret(namespace: string, name: string): Promise<KubeObject>;
}

interface BoundObjectRef {
  kind?: string;
  apiVersion?: string;
  name?: string;
  uid?: string;
}

const gk = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/**
 * TokenREST.Create: `req` is the decoded TokenRequest body, `name` and `namespace` come from
 * the URL. Returns the TokenRequest with its status; throws upstream's Status errors.
 */
export async function createTokenRequest(
  req: Record<string, unknown>,
  namespace: string,
  name: string,
  issuer: TokenIssuer,
  lookups: TokenRequestLookups,
  warn: (text: string) => void,
  now: () => Date = () => new Date(),
): Promise<Record<string, unknown>> {
  if (!namespace) throw newBadRequest('namespace is required');
  const meta = (req.metadata ??= {}) as Record<string, unknown> as {
    name?: string;
    namespace?: string;
    creationTimestamp?: string;
  };
  if (meta.name && meta.name !== name)
    throw newInvalid(gk, name, [
      invalid(Path.of('metadata', 'name'), meta.name, 'must match the service account name if specified'),
    ]);
  if (meta.namespace && meta.namespace !== namespace)
    throw newInvalid(gk, name, [
      invalid(
        Path.of('metadata', 'namespace'),
        meta.namespace,
        'must match the service account namespace if specified',
      ),
    ]);
  const sa = await lookups.getServiceAccount(namespace, name);
  const spec = (req.spec ??= {}) as Record<string, unknown> as {
    audiences?: string[];
    expirationSeconds?: number;
    boundObjectRef?: BoundObjectRef | null;
  };
  // SetDefaults_TokenRequestSpec, then the API audiences.
  if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) spec.expirationSeconds = 3600;
  if (!Array.isArray(spec.audiences) || spec.audiences.length === 0) spec.audiences = [...issuer.apiAudiences];
  meta.name ||= sa.metadata.name;
  meta.namespace ||= sa.metadata.namespace;
  const issuedAt = now();
  meta.creationTimestamp = formatTime(issuedAt);
  delete req.status;

  const errs: ErrorList = [];
  const exp = spec.expirationSeconds;
  if (typeof exp !== 'number' || !Number.isInteger(exp))
    throw newBadRequest(
      `json: cannot unmarshal ${typeof exp} into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64`,
    );
  if (exp < minTokenAgeSeconds)
    errs.push(invalid(Path.of('spec', 'expirationSeconds'), exp, 'may not specify a duration less than 10 minutes'));
  if (exp > maxTokenAgeSeconds)
    errs.push(
      invalid(Path.of('spec', 'expirationSeconds'), exp, 'may not specify a duration larger than 2^32 seconds'),
    );
  if (errs.length) throw newInvalid(gk, '', errs);

  let secret: { name: string; uid: string } | undefined;
  const ref = spec.boundObjectRef;
  if (ref) {
    const group = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[0]! : '';
    const version = (ref.apiVersion ?? '').includes('/') ? ref.apiVersion!.split('/')[1]! : (ref.apiVersion ?? '');
    let uid: string;
    if (group === '' && ref.kind === 'Secret') {
      const s = await lookups.getSecret(namespace, ref.name ?? '');
      uid = s.metadata.uid ?? '';
      secret = { name: s.metadata.name ?? '', uid };
    } else if (group === '' && ref.kind === 'Pod') {
      throw newNotFound({ group: '', resource: 'pods' }, ref.name ?? ''); // no pods are served here
    } else if (group === '' && ref.kind === 'Node') {
      throw newNotFound({ group: '', resource: 'nodes' }, ref.name ?? '');
    } else {
      const gvk = `${group}/${version}, Kind=${ref.kind ?? ''}`; // schema.GroupVersionKind.String()
      throw newBadRequest(`cannot bind token to object of type ${gvk}`);
    }
    if (ref.uid && ref.uid !== uid)
      throw newConflict(
        { group, resource: ref.kind ?? '' },
        ref.name ?? '',
        new Error(
          `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
        ),
      );
  }
  if (issuer.maxExpirationSeconds > 0 && exp > issuer.maxExpirationSeconds) {
    warn(`requested expiration of ${exp} seconds shortened to ${issuer.maxExpirationSeconds} seconds`);
    spec.expirationSeconds = issuer.maxExpirationSeconds;
  }
  const token = await mintServiceAccountToken({
    signingKey: issuer.signingKey,
    issuer: issuer.issuer,
    namespace,
    name: sa.metadata.name ?? name,
    uid: sa.metadata.uid ?? '',
    audiences: spec.audiences,
    expirationSeconds: spec.expirationSeconds,
    now: issuedAt.getTime(),
    ...(secret ? { secret } : {}),
  });
  return {
    kind: 'TokenRequest',
    apiVersion: 'authentication.k8s.io/v1',
    ...req,
    status: {
      token,
      expirationTimestamp: formatTime(new Date(issuedAt.getTime() + spec.expirationSeconds * 1000)),
    },
  };
}
