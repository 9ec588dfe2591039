// Builds the authorizer chain from plain configuration, as upstream's authorizer.Config.New
// (kubernetes pkg/kubeapiserver/authorizer/config.go): the privileged-group authorizer for
// system:masters first, then one authorizer per mode in order (each wrapped by `instrument`), and the union of
// their rule resolvers (what SelfSubjectRulesReview lists). The option group
// (src/server/options/authorization.ts) only turns flags into an AuthorizerConfig.

import type { Authorizer, RuleResolver } from './authorizer.ts';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer, PrivilegedGroupAuthorizer } from './builtin.ts';
import { UnionAuthorizer, UnionRuleResolver } from './union.ts';
import { RBACAuthorizer } from './rbac.ts';
import { ManifestLoader } from './rbac-loader.ts';
import { WebhookAuthorizer } from './webhook.ts';
import type { WebhookFetchFactory } from '../util/webhook/client.ts';
import { loadWebhookKubeconfig } from '../util/webhook/kubeconfig.ts';
import type { FileSystem } from '../util/filesystem.ts';
import type { Logger } from '../util/logger.ts';

export const modeAlwaysAllow = 'AlwaysAllow';
export const modeAlwaysDeny = 'AlwaysDeny';
export const modeABAC = 'ABAC';
export const modeWebhook = 'Webhook';
export const modeRBAC = 'RBAC';
export const modeNode = 'Node';

/** The authorizer configuration: plain data (upstream's AuthorizationConfiguration, legacy-flag form). */
export interface AuthorizerConfig {
  /** The modes in order (`--authorization-mode`, or the default). */
  modes: string[];
  /** Groups allowed everything before any mode is asked (upstream: system:masters). */
  privilegedGroups?: string[];
  /** Mode Webhook (`--authorization-webhook-*`). TTLs in milliseconds. */
  webhook?: {
    configFile: string;
    version: 'v1' | 'v1beta1';
    authorizedTTL: number;
    unauthorizedTTL: number;
  };
  /** Mode RBAC: manifest files or folders (`--authorization-rbac-manifests`). */
  rbac?: { manifests: string[] };
}

/** What building needs besides the configuration. */
export interface AuthorizerDeps {
  fileSystem: FileSystem;
  logger: Logger;
  /** Wraps each mode's authorizer (upstream instruments them: src/metrics/authorization.ts). */
  instrument?: (authorizer: Authorizer, mode: string) => Authorizer;
  /** How webhooks are reached (a fetch honouring the kubeconfig's CA and client certificate). */
  webhookFetch?: WebhookFetchFactory;
}

export interface BuiltAuthorizer {
  authorizer: Authorizer;
  ruleResolver: RuleResolver;
  /** The RBAC authorizer and its manifest loader, when mode RBAC is on. */
  rbac?: { authorizer: RBACAuthorizer; loader?: ManifestLoader };
}

/** authorizer.Config.New. Throws when a file cannot be read or a manifest is invalid (start-up fails). */
export async function newAuthorizer(config: AuthorizerConfig, deps: AuthorizerDeps): Promise<BuiltAuthorizer> {
  const authorizers: Authorizer[] = [new PrivilegedGroupAuthorizer(config.privilegedGroups ?? ['system:masters'])];
  const resolvers: RuleResolver[] = [];
  let rbac: BuiltAuthorizer['rbac'];
  const add = (a: Authorizer & RuleResolver, mode: string) => {
    authorizers.push(deps.instrument ? deps.instrument(a, mode) : a);
    resolvers.push(a);
  };
  for (const mode of config.modes) {
    switch (mode) {
      case modeAlwaysAllow:
        add(new AlwaysAllowAuthorizer(), mode);
        break;
      case modeAlwaysDeny:
        add(new AlwaysDenyAuthorizer(), mode);
        break;
      case modeRBAC: {
        const a = new RBACAuthorizer();
        let loader: ManifestLoader | undefined;
        const paths = config.rbac?.manifests ?? [];
        if (paths.length) {
          loader = new ManifestLoader({ fileSystem: deps.fileSystem, paths, authorizer: a, logger: deps.logger });
          await loader.load(); // a bad policy fails start-up with file and line
        }
        rbac = { authorizer: a, ...(loader ? { loader } : {}) };
        add(a, mode);
        break;
      }
      case modeWebhook: {
        const w = config.webhook;
        if (!w) throw new Error("authorization-mode Webhook's authorization config file not passed");
        const client = await loadWebhookKubeconfig(deps.fileSystem, w.configFile);
        add(
          new WebhookAuthorizer({
            client,
            version: w.version,
            authorizedTTL: w.authorizedTTL,
            unauthorizedTTL: w.unauthorizedTTL,
            ...(deps.webhookFetch ? { fetchFactory: deps.webhookFetch } : {}),
          }),
          mode,
        );
        break;
      }
      default:
        throw new Error(`unknown authorization mode ${JSON.stringify(mode)} specified`);
    }
  }
  return {
    authorizer: new UnionAuthorizer(authorizers),
    ruleResolver: new UnionRuleResolver(resolvers),
    ...(rbac ? { rbac } : {}),
  };
}
