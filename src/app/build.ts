// kube-apiserver's start-up path, portable: flag strings → ServerOptions (parse, validate,
// ApplyTo) → Config → complete → New with the kube not-found handler → PrepareRun.
// The Node CLI and every edge adapter build their server through this one function.

import { newAPIExtensionsServer } from '../apiextensions/apiserver.ts';
import { includeDelegateDiscovery } from '../endpoints/discovery/discovery.ts';
import { complete, newConfig, newServer, type Config } from '../server/config.ts';
import { newEmptyDelegate, notFoundHandler, type GenericAPIServer } from '../server/genericapiserver.ts';
import { aggregateErrors, ServerOptions, type ApplyContext } from '../server/options/options.ts';
import { MemoryFileSystem } from '../util/filesystem.ts';
import { KlogLogger } from '../util/logger.ts';

export class OptionsValidationError extends Error {
  readonly errors: string[];
  constructor(errors: string[]) {
    super(aggregateErrors(errors));
    this.name = 'OptionsValidationError';
    this.errors = errors;
  }
}

/** The platform's services (src/server/platform.ts), a logger, and what embedders adjust. */
export interface BuildServerOptions extends Partial<ApplyContext> {
  /** Applied to the Config after the flags (for embedders and platform adapters). */
  configure?: (config: Config) => void | Promise<void>;
  /** Server name (kube-apiserver's is "kube-apiserver"). */
  name?: string;
}

export interface BuiltServer {
  server: GenericAPIServer;
  options: ServerOptions;
  config: Config;
}

/**
 * Parses kube-apiserver flags and builds a prepared server. Throws FlagError for bad flags,
 * HelpRequested for --help, OptionsValidationError for invalid values, and ApplyTo errors as is.
 */
export async function buildServerFromFlags(
  args: readonly string[],
  opts: BuildServerOptions = {},
): Promise<BuiltServer> {
  const options = new ServerOptions();
  options.parse(args);
  const errors = options.validate();
  if (errors.length) throw new OptionsValidationError(errors);
  const { configure, name, ...platform } = opts;
  const logger = platform.logger ?? new KlogLogger();
  const fileSystem = platform.fileSystem ?? new MemoryFileSystem();
  const config = newConfig({ logger, fileSystem });
  await options.applyTo(config, { ...platform, logger, fileSystem });
  await configure?.(config);
  // kube-apiserver's chain (cmd/kube-apiserver/app/server.go CreateServerChain): the
  // apiextensions server is the main server's delegate, the not-found handler its own.
  // Both serve one ResourceRegistry (the completed config's).
  const completed = complete(config);
  const notFound = newEmptyDelegate(notFoundHandler);
  const apiExtensions = completed.resources ? newAPIExtensionsServer(completed, notFound) : undefined;
  const server = newServer(completed, name ?? 'kube-apiserver', apiExtensions ?? notFound);
  if (apiExtensions) includeDelegateDiscovery(server, apiExtensions);
  server.prepareRun();
  return { server, options, config };
}
