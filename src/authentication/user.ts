// Well-known user and group names (k8s.io/apiserver/pkg/authentication/user, serviceaccount).

export const anonymousUser = 'system:anonymous';
export const apiserverUser = 'system:apiserver';
export const allAuthenticated = 'system:authenticated';
export const allUnauthenticated = 'system:unauthenticated';
export const systemPrivilegedGroup = 'system:masters';
export const serviceAccountUsernamePrefix = 'system:serviceaccount:';
export const serviceAccountGroupPrefix = 'system:serviceaccounts:';
export const allServiceAccountsGroup = 'system:serviceaccounts';
/** Extra key carrying a credential identifier (x509 fingerprint, token JTI). */
export const credentialIDKey = 'authentication.kubernetes.io/credential-id';
