// Service accounts served from storage, wired in one call from the authentication options:
// `--service-account-lookup` (the token authenticator asks the registry, through the watch cache,
// whether the account and its bound Secret still exist), the serviceaccounts/token subresource
// (TokenRequest) signed with `--service-account-signing-key-file`, and the serviceaccounts
// controller that gives every namespace its `default` account.

import type { ServiceAccountTokenGetter } from '../../authentication/serviceaccount.ts';
import type { SigningKey } from '../../authentication/keys.ts';
import type { RequestContext } from '../../endpoints/request/context.ts';
import { addWarning } from '../../endpoints/request/warning.ts';
import { decodeCreateBody, objectMetaFields, type KindInfo } from '../../endpoints/handlers/decode.ts';
import { goJSON } from '../../endpoints/responsewriters/status.ts';
import { objectMetaSchema } from '../../util/protobuf.ts';
import type { ResourceDefinition, ResourceRegistry } from '../rest/registry.ts';
import { serviceAccountTokenGetter } from './serviceaccount-getter.ts';
import { ServiceAccountsController } from './serviceaccount-controller.ts';
import { createTokenRequest, type TokenIssuer } from './serviceaccount-token.ts';

/** What the wiring touches on the server's Config (structurally: no import of the server). */
export interface ServiceAccountConfig {
  resourceDefinitions: ResourceDefinition[];
  maxRequestBodyBytes: number;
  controllers: {
    push(c: {
      name: string;
      requiresLeader?: boolean;
      run(registry: ResourceRegistry, signal: AbortSignal): Promise<void>;
    }): number;
  };
  routeInstallers: { push(install: (server: { config: { resources?: ResourceRegistry } }) => void): number };
  logger: { error(msg: string, kv?: Record<string, unknown>): void };
}

export interface ServiceAccountOptions {
  /** `--service-account-lookup`. */
  lookup: boolean;
  /** Signing: the first issuer and the signing key; absent: no TokenRequest (upstream: not installed). */
  issuer?: string;
  signingKey?: SigningKey;
  apiAudiences: string[];
  /** Seconds; 0: no limit. */
  maxExpirationSeconds: number;
  extendExpiration: boolean;
}

const tokenRequestKind: KindInfo = {
  group: 'authentication.k8s.io',
  version: 'v1',
  kind: 'TokenRequest',
  schema: {
    1: { name: 'metadata', type: 'message', schema: objectMetaSchema },
    2: {
      name: 'spec',
      type: 'message',
      schema: {
        1: { name: 'audiences', type: 'strings' },
        4: { name: 'expirationSeconds', type: 'int64' },
        3: {
          name: 'boundObjectRef',
          type: 'message',
          schema: {
            1: { name: 'kind', type: 'string' },
            2: { name: 'apiVersion', type: 'string' },
            3: { name: 'name', type: 'string' },
            4: { name: 'uid', type: 'string' },
          },
        },
      },
    },
    3: { name: 'status', type: 'skip' },
  },
  fields: {
    metadata: objectMetaFields,
    spec: {
      audiences: true,
      expirationSeconds: true,
      boundObjectRef: { kind: true, apiVersion: true, name: true, uid: true },
    },
    status: true,
  },
};

/**
 * Wires service accounts into the config; returns the lookup the service-account token
 * authenticator calls (undefined until the registry exists, or with `--service-account-lookup=false`).
 */
export function installServiceAccounts(
  config: ServiceAccountConfig,
  o: ServiceAccountOptions,
): () => ServiceAccountTokenGetter | undefined {
  let getter: ServiceAccountTokenGetter | undefined;
  if (o.lookup)
    config.routeInstallers.push((server) => {
      const registry = server.config.resources;
      if (registry) getter = serviceAccountTokenGetter((resource) => registry.store('', resource));
    });

  config.controllers.push({
    name: 'serviceaccount-controller',
    requiresLeader: true,
    async run(registry, signal) {
      const namespaces = registry.store('', 'namespaces');
      const serviceAccounts = registry.store('', 'serviceaccounts');
      if (!namespaces || !serviceAccounts) return;
      await new ServiceAccountsController({ namespaces, serviceAccounts, logger: config.logger }).run(signal);
    },
  });

  if (o.issuer && o.signingKey) {
    const issuer: TokenIssuer = {
      issuer: o.issuer,
      signingKey: o.signingKey,
      apiAudiences: o.apiAudiences,
      maxExpirationSeconds: o.maxExpirationSeconds,
      extendExpiration: o.extendExpiration,
    };
    const i = config.resourceDefinitions.findIndex((d) => d.group === '' && d.resource.name === 'serviceaccounts');
    const def = config.resourceDefinitions[i];
    if (def) {
      config.resourceDefinitions[i] = {
        ...def,
        resource: {
          ...def.resource,
          subresources: [
            ...(def.resource.subresources ?? []).filter((s) => s.name !== 'token'),
            { name: 'token', kind: 'TokenRequest', verbs: ['create'] },
          ],
        },
        subresourceHandlers: {
          ...def.subresourceHandlers,
          token: (ctx, registry) => tokenHandler(ctx, registry, issuer, config.maxRequestBodyBytes),
        },
      };
    }
  }
  return () => getter;
}

async function tokenHandler(
  ctx: RequestContext,
  registry: ResourceRegistry,
  issuer: TokenIssuer,
  maxRequestBodyBytes: number,
): Promise<Response> {
  const info = ctx.requestInfo!;
  if (info.verb !== 'create')
    return new Response(
      goJSON({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `${info.verb} is not supported on resources of kind "serviceaccounts/token"`,
        reason: 'MethodNotAllowed',
        details: {},
        code: 405,
      }) + '\n',
      { status: 405, headers: { 'content-type': 'application/json' } },
    );
  const body = (await decodeCreateBody(ctx, tokenRequestKind, maxRequestBodyBytes)) as Record<string, unknown>;
  const store = (resource: string) => registry.store('', resource)!;
  const out = await createTokenRequest(
    body,
    info.namespace,
    info.name,
    issuer,
    {
      getServiceAccount: async (ns, name) => store('serviceaccounts').get(ns, name),
      getSecret: async (ns, name) => store('secrets').get(ns, name),
    },
    (text) => addWarning(ctx, '', text),
  );
  return new Response(goJSON(out) + '\n', { status: 201, headers: { 'content-type': 'application/json' } });
}
