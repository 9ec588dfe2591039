// RequestInfo as in k8s.io/apiserver/pkg/endpoints/request/requestinfo.go.
// The resolver (RequestInfoFactory) lives in this file too; see reference k8s-filters.md §7.

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The percent-decoded URL path. */
  path: string;
  verb: string;
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  parts: string[];
  /** Raw first `fieldSelector` value for list/watch/deletecollection, else "". */
  fieldSelector: string;
  /** Raw first `labelSelector` value for list/watch/deletecollection, else "". */
  labelSelector: string;
}
