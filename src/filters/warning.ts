// WithWarningRecorder (k8s.io/apiserver/pkg/endpoints/filters/warning.go): gives inner layers a
// recorder for `Warning` headers (src/endpoints/request/warning.ts: addWarning).

import type { Handler } from '../endpoints/request/context.ts';
import { installWarningRecorder } from '../endpoints/request/warning.ts';

/**
 * Lets any inner handler call `addWarning(ctx, agent, text)`; the header is added to the response.
 *
 * @example
 * ```ts
 * const app = new Hono<FilterEnv>();
 * app.use(honoMiddleware(withWarningRecorder, {}));
 * app.get('/x', (c) => (addWarning(c.var.requestContext, '', 'v1beta1 is deprecated'), c.text('ok')));
 * ```
 */
export function withWarningRecorder(next: Handler, _c?: unknown): Handler {
  return (ctx) => {
    installWarningRecorder(ctx);
    return next(ctx);
  };
}
