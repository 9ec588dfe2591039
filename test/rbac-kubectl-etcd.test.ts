// RBAC and service accounts end to end over a real etcd (the suite: test/rbac-kubectl-suite.ts).
import { etcdSkip } from './etcd-harness.ts';
import { kubectlSkip } from './kubectl-server.ts';
import { rbacSuite } from './rbac-kubectl-suite.ts';

rbacSuite({ name: 'etcd', etcd: true, skip: kubectlSkip || etcdSkip() });
