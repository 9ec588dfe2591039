// kube-apiserver's own flags beyond the generic server (cmd/kube-apiserver/app/options/options.go
// Extra): the service cluster IP range and the events' time to live, with upstream's help text,
// defaults and validation messages (cmd/kube-apiserver/app/options/validation.go).

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import type { OptionsGroup } from './options.ts';
import { DefaultServiceIPCIDR, parseCIDR, type CIDR } from '../../registry/core/ipallocator.ts';

const second = 1e9;
/** The primary range may hold at most 2^20 addresses (validateMaxCIDRRange's maxCIDRBits). */
const maxCIDRBits = 20;

export class ExtraOptions implements OptionsGroup {
  serviceClusterIPRanges!: Flag<string>;
  eventTTL!: Flag<number>;

  addFlags(fs: FlagSet): void {
    fs.section('Misc');
    this.eventTTL = fs.duration('event-ttl', 3600 * second);
    this.serviceClusterIPRanges = fs.string('service-cluster-ip-range', '');
  }

  /** The ranges, primary first (the default when the flag is empty). */
  ranges(): { ranges: CIDR[]; errors: string[] } {
    const list = this.serviceClusterIPRanges.value ? this.serviceClusterIPRanges.value.split(',') : [];
    if (list.length === 0) return { ranges: [parseCIDR(DefaultServiceIPCIDR)!], errors: [] };
    const errors: string[] = [];
    const ranges: CIDR[] = [];
    list.slice(0, 2).forEach((s, i) => {
      const c = parseCIDR(s.trim());
      if (!c) errors.push(`service-cluster-ip-range[${i}] is not a valid cidr`);
      else ranges.push(c);
    });
    return { ranges, errors };
  }

  validate(): string[] {
    const errors: string[] = [];
    const list = this.serviceClusterIPRanges.value ? this.serviceClusterIPRanges.value.split(',') : [];
    if (list.length > 2) errors.push('--service-cluster-ip-range must not contain more than two entries');
    const { ranges, errors: parse } = this.ranges();
    if (parse.length) return [...errors, ...parse.map((e) => `error determining service IP ranges: ${e}`)];
    const primary = ranges[0]!;
    if (primary.bits - primary.prefix > maxCIDRBits)
      errors.push(
        `specified --service-cluster-ip-range is too large; for ${primary.bits}-bit addresses, the mask must be >= ${primary.bits - maxCIDRBits}`,
      );
    if (ranges.length === 2) {
      const secondary = ranges[1]!;
      if (secondary.bits === primary.bits)
        errors.push('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
      else if (secondary.bits - secondary.prefix > maxCIDRBits)
        errors.push(
          `specified --service-cluster-ip-range[1] is too large; for ${secondary.bits}-bit addresses, the mask must be >= ${secondary.bits - maxCIDRBits}`,
        );
    }
    return errors;
  }

  applyTo(config: Config): void {
    config.serviceClusterIPRanges = this.ranges().ranges.map((r) => r.text);
    config.eventTTLSeconds = Math.floor(this.eventTTL.value / second);
  }
}
