// chainAdmissionHandler (k8s.io/apiserver/pkg/admission/chain.go): plugins in order, the first
// refusal wins; mutating and validating passes are separate so that every mutation has happened
// before anything validates.

import type { AdmissionPlugin, Attributes } from './interfaces.ts';

export class AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];
  private readonly mutating: AdmissionPlugin[];
  private readonly validating: AdmissionPlugin[];

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.plugins = plugins;
    this.mutating = plugins.filter((p) => p.admit);
    this.validating = plugins.filter((p) => p.validate);
  }

  /** Runs every mutating plugin that handles the operation. */
  async admit(attrs: Attributes): Promise<void> {
    for (const p of this.mutating) if (p.handles(attrs.operation)) await p.admit!(attrs);
  }

  /** Runs every validating plugin that handles the operation. */
  async validate(attrs: Attributes): Promise<void> {
    for (const p of this.validating) if (p.handles(attrs.operation)) await p.validate!(attrs);
  }
}
