// Service-account issuer discovery (pkg/serviceaccount/openidmetadata.go and
// routes/openidmetadata.go): GET /.well-known/openid-configuration and GET /openid/v1/jwks.

import type { RouteTarget } from '../server/mux/container.ts';
import type { PublicKeyEntry } from './keys.ts';

export const openIDConfigPath = '/.well-known/openid-configuration';
export const jwksPath = '/openid/v1/jwks';
const cacheControl = 'public, max-age=3600';

export interface OpenIDMetadata {
  configJSON: string;
  publicKeysetJSON: string;
}

/** NewOpenIDMetadata: throws upstream's errors when discovery cannot be served. */
export function newOpenIDMetadata(
  issuerURL: string,
  jwksURI: string,
  defaultExternalAddress: string,
  keys: PublicKeyEntry[],
): OpenIDMetadata {
  if (!issuerURL) throw new Error('empty issuer URL');
  if (!jwksURI && !defaultExternalAddress)
    throw new Error('either the JWKS URI or the default external address, or both, must be set');
  if (!keys.length) throw new Error('no keys provided for validating keyset');
  let iss: URL;
  try {
    iss = new URL(issuerURL);
  } catch {
    throw new Error(`could not parse issuer URL: ${issuerURL}`);
  }
  if (iss.protocol !== 'https:') throw new Error(`issuer URL must use https scheme, got: ${issuerURL}`);
  if (iss.search) throw new Error(`issuer URL may not include a query, got: ${issuerURL}`);
  if (!jwksURI) jwksURI = `https://${defaultExternalAddress}${jwksPath}`;
  const algs = [...new Set(keys.map((k) => k.alg))].sort();
  const configJSON = JSON.stringify({
    issuer: issuerURL,
    jwks_uri: jwksURI,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: algs,
  });
  const publicKeysetJSON = JSON.stringify({ keys: keys.map(publicJWK) });
  return { configJSON, publicKeysetJSON };
}

/** go-jose JSONWebKey field order: use, kty, kid, crv, alg, x, y, n, e. */
function publicJWK(k: PublicKeyEntry): Record<string, string> {
  const j = k.jwk;
  const out: Record<string, string> = { use: 'sig', kty: j.kty!, kid: k.kid };
  if (j.crv) out.crv = j.crv;
  out.alg = k.alg;
  if (j.x) out.x = j.x;
  if (j.y) out.y = j.y;
  if (j.n) out.n = j.n;
  if (j.e) out.e = j.e;
  return out;
}

/** A Config.routeInstallers entry serving both documents. */
export function openIDMetadataInstaller(md: OpenIDMetadata): (server: RouteTarget) => void {
  return (server) => {
    const h = server.handler;
    h.registerWebService(openIDConfigPath);
    h.registerWebService(jwksPath);
    h.goRestfulContainer.get(
      openIDConfigPath,
      () =>
        new Response(md.configJSON, { headers: { 'content-type': 'application/json', 'cache-control': cacheControl } }),
    );
    h.goRestfulContainer.get(
      jwksPath,
      () =>
        new Response(md.publicKeysetJSON, {
          headers: { 'content-type': 'application/jwk-set+json', 'cache-control': cacheControl },
        }),
    );
  };
}
