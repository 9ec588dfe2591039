// PLACEHOLDER: pass-through until the owning issue implements this filter.
import type { Handler } from '../endpoints/request/context.ts';
import type { CompletedConfig } from '../server/config.ts';

export function withWatchTerminationDuringShutdown(next: Handler, _c: CompletedConfig): Handler {
  return next;
}
