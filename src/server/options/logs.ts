// LogsOptions (component-base logs/api/v1, the klog flags kube-apiserver shows under "Logs
// flags"): -v/--v sets the logger's verbosity.

import type { Config } from '../config.ts';
import type { Flag, FlagSet } from './flags.ts';
import { FlagError } from './flags.ts';
import type { ApplyContext, OptionsGroup } from './options.ts';

export class LogsOptions implements OptionsGroup {
  verbosity = 0;
  private flag?: Flag<number>;

  addFlags(fs: FlagSet): void {
    fs.section('Logs');
    this.flag = fs.add<number>({
      name: 'v',
      shorthand: 'v',
      typeName: 'Level',
      defaultValue: this.verbosity,
      set: (raw) => {
        // klog.Level parses as uint32 (strconv.ParseUint).
        if (!/^\d+$/.test(raw) || Number(raw) > 0xffffffff)
          throw new FlagError(`strconv.ParseUint: parsing ${JSON.stringify(raw)}: invalid syntax`);
        return Number(raw);
      },
      formatDefault: (v) => (v ? String(v) : ''),
    });
  }

  validate(): string[] {
    if (this.flag) this.verbosity = this.flag.value;
    return [];
  }

  applyTo(_config: Config, ctx: ApplyContext): void {
    if (this.flag && !this.flag.changed) return;
    ctx.logger.setVerbosity?.(this.verbosity);
  }
}
