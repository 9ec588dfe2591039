// ValidateListOptions (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation/validation.go)
// with the WatchList feature on, as v1.34 serves it: the REST handler answers its errors as
// `ListOptions.meta.k8s.io "" is invalid` (handlers/get.go ListResource).

import { forbidden, notSupported, Path, type ErrorList } from '../../util/validation/field.ts';

export interface ListOptionsQuery {
  watch: boolean;
  resourceVersion: string;
  resourceVersionMatch: string;
  continue: string;
  /** Absent (undefined) differs from `false`, as upstream's *bool. */
  sendInitialEvents?: boolean;
}

const rvmPath = Path.of('resourceVersionMatch');

export function validateListOptions(o: ListOptionsQuery): ErrorList {
  const errs: ErrorList = [];
  const match = o.resourceVersionMatch;
  if (o.watch) {
    if (o.sendInitialEvents !== undefined && match !== 'NotOlderThan')
      errs.push(forbidden(rvmPath, 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (match !== '') {
      if (o.sendInitialEvents === undefined)
        errs.push(
          forbidden(rvmPath, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'),
        );
      if (match !== 'NotOlderThan') errs.push(notSupported(rvmPath, match, ['NotOlderThan']));
      if (o.continue !== '')
        errs.push(forbidden(rvmPath, 'resourceVersionMatch is forbidden when continue is provided'));
    }
    return errs;
  }
  if (match !== '') {
    if (o.resourceVersion === '')
      errs.push(forbidden(rvmPath, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (o.continue !== '') errs.push(forbidden(rvmPath, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(notSupported(rvmPath, match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && o.resourceVersion === '0')
      errs.push(forbidden(rvmPath, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (o.sendInitialEvents !== undefined)
    errs.push(forbidden(Path.of('sendInitialEvents'), 'sendInitialEvents is forbidden for list'));
  return errs;
}
