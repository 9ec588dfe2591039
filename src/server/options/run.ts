// ServerRunOptions (k8s.io/apiserver/pkg/server/options/server_run_options.go): the "Generic"
// flags that size and shape the handler chain and the shutdown sequence, with upstream's
// names, help text, defaults and validation messages.

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import type { OptionsGroup } from './options.ts';
import { aggregateErrors } from './options.ts';

const nanosPerMs = 1e6;
const second = 1e9;

const corsAllowedOriginsHelpText =
  "List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching. If this list is empty CORS will not be enabled. Please ensure each expression matches the entire hostname by anchoring to the start with '^' or including the '//' prefix, and by anchoring to the end with '$' or including the ':' port separator suffix. Examples of valid expressions are '//example\\.com(:|$)' and '^https://example\\.com(:|$)'";

export class ServerRunOptions implements OptionsGroup {
  advertiseAddress!: Flag<string>;
  externalHost!: Flag<string>;
  corsAllowedOrigins!: Flag<string[]>;
  hstsDirectives!: Flag<string[]>;
  maxRequestsInFlight!: Flag<number>;
  maxMutatingRequestsInFlight!: Flag<number>;
  requestTimeout!: Flag<number>;
  goawayChance!: Flag<number>;
  livezGracePeriod!: Flag<number>;
  minRequestTimeout!: Flag<number>;
  shutdownDelayDuration!: Flag<number>;
  shutdownSendRetryAfter!: Flag<boolean>;
  shutdownWatchTerminationGracePeriod!: Flag<number>;

  addFlags(fs: FlagSet): void {
    fs.section('Generic');
    this.advertiseAddress = fs.ip(
      'advertise-address',
      '',
      "The IP address on which to advertise the apiserver to members of the cluster. This address must be reachable by the rest of the cluster. If blank, the --bind-address will be used. If --bind-address is unspecified, the host's default interface will be used.",
    );
    this.corsAllowedOrigins = fs.stringSlice('cors-allowed-origins', [], corsAllowedOriginsHelpText);
    this.hstsDirectives = fs.stringSlice(
      'strict-transport-security-directives',
      [],
      "List of directives for HSTS, comma separated. If this list is empty, then HSTS directives will not be added. Example: 'max-age=31536000,includeSubDomains,preload'",
    );
    this.externalHost = fs.string(
      'external-hostname',
      '',
      'The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery).',
    );
    this.maxRequestsInFlight = fs.int(
      'max-requests-inflight',
      400,
      "This and --max-mutating-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of non-mutating requests in flight, or a zero value disables the limit completely.",
    );
    this.maxMutatingRequestsInFlight = fs.int(
      'max-mutating-requests-inflight',
      200,
      "This and --max-requests-inflight are summed to determine the server's total concurrency limit (which must be positive) if --enable-priority-and-fairness is true. Otherwise, this flag limits the maximum number of mutating requests in flight, or a zero value disables the limit completely.",
    );
    this.requestTimeout = fs.duration(
      'request-timeout',
      60 * second,
      'An optional field indicating the duration a handler must keep a request open before timing it out. This is the default request timeout for requests but may be overridden by flags such as --min-request-timeout for specific types of requests.',
    );
    this.goawayChance = fs.float(
      'goaway-chance',
      0,
      "To prevent HTTP/2 clients from getting stuck on a single apiserver, randomly close a connection (GOAWAY). The client's other in-flight requests won't be affected, and the client will reconnect, likely landing on a different apiserver after going through the load balancer again. This argument sets the fraction of requests that will be sent a GOAWAY. Clusters with single apiservers, or which don't use a load balancer, should NOT enable this. Min is 0 (off), Max is .02 (1/50 requests); .001 (1/1000) is a recommended starting point.",
    );
    this.livezGracePeriod = fs.duration(
      'livez-grace-period',
      0,
      "This option represents the maximum amount of time it should take for apiserver to complete its startup sequence and become live. From apiserver's start time to when this amount of time has elapsed, /livez will assume that unfinished post-start hooks will complete successfully and therefore return true.",
    );
    this.minRequestTimeout = fs.int(
      'min-request-timeout',
      1800,
      'An optional field indicating the minimum number of seconds a handler must keep a request open before timing it out. Currently only honored by the watch request handler, which picks a randomized value above this number as the connection timeout, to spread out load.',
    );
    this.shutdownDelayDuration = fs.duration(
      'shutdown-delay-duration',
      0,
      'Time to delay the termination. During that time the server keeps serving requests normally. The endpoints /healthz and /livez will return success, but /readyz immediately returns failure. Graceful termination starts after this delay has elapsed. This can be used to allow load balancer to stop sending traffic to this server.',
    );
    this.shutdownSendRetryAfter = fs.bool(
      'shutdown-send-retry-after',
      false,
      "If true the HTTP Server will continue listening until all non long running request(s) in flight have been drained, during this window all incoming requests will be rejected with a status code 429 and a 'Retry-After' response header, in addition 'Connection: close' response header is set in order to tear down the TCP connection when idle.",
    );
    this.shutdownWatchTerminationGracePeriod = fs.duration(
      'shutdown-watch-termination-grace-period',
      0,
      'This option, if set, represents the maximum amount of grace period the apiserver will wait for active watch request(s) to drain during the graceful server shutdown window.',
    );
  }

  validate(): string[] {
    const errors: string[] = [];
    if (this.livezGracePeriod.value < 0) errors.push('--livez-grace-period can not be a negative value');
    if (this.maxRequestsInFlight.value < 0) errors.push('--max-requests-inflight can not be negative value');
    if (this.maxMutatingRequestsInFlight.value < 0)
      errors.push('--max-mutating-requests-inflight can not be negative value');
    if (this.requestTimeout.value < 0) errors.push('--request-timeout can not be negative value');
    if (this.goawayChance.value < 0 || this.goawayChance.value > 0.02)
      errors.push('--goaway-chance can not be less than 0 or greater than 0.02');
    if (this.minRequestTimeout.value < 0) errors.push('--min-request-timeout can not be negative value');
    if (this.shutdownDelayDuration.value < 0) errors.push('--shutdown-delay-duration can not be negative value');
    if (this.shutdownWatchTerminationGracePeriod.value < 0) {
      errors.push('shutdown-watch-termination-grace-period, if provided, can not be a negative value');
    }
    const hsts = validateHSTSDirectives(this.hstsDirectives.value);
    if (hsts) errors.push(hsts);
    const cors = validateCorsAllowedOriginList(this.corsAllowedOrigins.value);
    if (cors) errors.push(cors);
    return errors;
  }

  applyTo(config: Config): void {
    // The advertise address is defaulted from the bind address by SecureServingOptions.applyTo
    // (DefaultAdvertiseAddress), which also derives the external address from it.
    if (this.advertiseAddress.value) config.publicAddress = this.advertiseAddress.value;
    if (this.externalHost.value) config.externalAddress = this.externalHost.value;
    config.corsAllowedOrigins = [...this.corsAllowedOrigins.value];
    config.hstsDirectives = [...this.hstsDirectives.value];
    config.maxRequestsInFlight = this.maxRequestsInFlight.value;
    config.maxMutatingRequestsInFlight = this.maxMutatingRequestsInFlight.value;
    config.livezGracePeriod = this.livezGracePeriod.value / nanosPerMs;
    config.requestTimeout = this.requestTimeout.value / nanosPerMs;
    config.goawayChance = this.goawayChance.value;
    config.minRequestTimeout = this.minRequestTimeout.value;
    config.shutdownDelayDuration = this.shutdownDelayDuration.value / nanosPerMs;
    config.shutdownSendRetryAfter = this.shutdownSendRetryAfter.value;
    config.shutdownWatchTerminationGracePeriod = this.shutdownWatchTerminationGracePeriod.value / nanosPerMs;
  }
}

/** validateHSTSDirectives: `max-age=<x>`, `includeSubDomains` or `preload`; aggregated. */
export function validateHSTSDirectives(directives: readonly string[]): string | undefined {
  const errors: string[] = [];
  for (const d of directives) {
    if (d.trim().length === 0) {
      errors.push('empty value in strict-transport-security-directives');
      continue;
    }
    if (d !== 'includeSubDomains' && d !== 'preload') {
      const parts = d.split('=');
      if (parts.length !== 2 || parts[0] !== 'max-age') {
        errors.push(
          '--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information',
        );
      }
    }
  }
  return errors.length ? aggregateErrors(errors) : undefined;
}

/** validateCorsAllowedOriginList: each regex must compile and pin to the start and end of the host. */
export function validateCorsAllowedOriginList(origins: readonly string[]): string | undefined {
  const errors: string[] = [];
  for (const re of origins) {
    if (re.length === 0) {
      errors.push(`empty value in --cors-allowed-origins, help: ${corsAllowedOriginsHelpText}`);
      continue;
    }
    let err: string | undefined;
    try {
      new RegExp(re.replace(/^\(\?[imsU]+\)/, ''));
    } catch (e) {
      err = (e as Error).message;
    }
    if (!err) {
      const pinStart = re.includes('^') || re.includes('//');
      const pinEnd = re.includes('$') || re.includes(':');
      if (!pinStart || !pinEnd) err = 'regular expression does not pin to start/end of host';
    }
    if (err)
      errors.push(
        `--cors-allowed-origins has an invalid regular expression: ${err}, help: ${corsAllowedOriginsHelpText}`,
      );
  }
  return errors.length ? aggregateErrors(errors) : undefined;
}
