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
    this.advertiseAddress = fs.ip('advertise-address', '');
    this.corsAllowedOrigins = fs.stringSlice('cors-allowed-origins', [], corsAllowedOriginsHelpText);
    this.hstsDirectives = fs.stringSlice('strict-transport-security-directives', []);
    this.externalHost = fs.string('external-hostname', '');
    this.maxRequestsInFlight = fs.int('max-requests-inflight', 400);
    this.maxMutatingRequestsInFlight = fs.int('max-mutating-requests-inflight', 200);
    this.requestTimeout = fs.duration('request-timeout', 60 * second);
    this.goawayChance = fs.float('goaway-chance', 0);
    this.livezGracePeriod = fs.duration('livez-grace-period', 0);
    this.minRequestTimeout = fs.int('min-request-timeout', 1800);
    this.shutdownDelayDuration = fs.duration('shutdown-delay-duration', 0);
    this.shutdownSendRetryAfter = fs.bool('shutdown-send-retry-after', false);
    this.shutdownWatchTerminationGracePeriod = fs.duration('shutdown-watch-termination-grace-period', 0);
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
