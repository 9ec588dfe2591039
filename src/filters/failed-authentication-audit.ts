// PLACEHOLDER: pass-through until the audit issue implements WithFailedAuthenticationAudit.
import type { Handler } from '../endpoints/request/context.ts';
import type { CompletedConfig } from '../server/config.ts';

export function withFailedAuthenticationAudit(failedHandler: Handler, _c: CompletedConfig): Handler {
  return failedHandler;
}
