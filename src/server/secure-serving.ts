// SecureServingInfo (k8s.io/apiserver/pkg/server/config.go): what a listener needs, filled by
// SecureServingOptions.ApplyTo (options/serving.ts) and read by adapters/node's listener.

import type {
  CAContentProvider,
  CertKeyContentProvider,
  SNICertKeyContentProvider,
} from './dynamiccertificates/content.ts';

/** Node/OpenSSL protocol names (cliflag.TLSVersion maps onto them). */
export type TLSVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

/** SecureServingInfo: what the listener needs (pkg/server/config.go). */
export interface SecureServingInfo {
  /** `--bind-address`; `0.0.0.0`/`::` mean every interface and address family. */
  bindAddress: string;
  /** `--secure-port`. An adapter may bind 0 to get an ephemeral port (upstream: a pre-made listener). */
  bindPort: number;
  bindNetwork: 'tcp' | 'tcp4' | 'tcp6';
  /** The default serving certificate (explicit files or generated); undefined when only SNI. */
  cert?: CertKeyContentProvider;
  /** SNI certificates; the loopback one first. */
  sniCerts: SNICertKeyContentProvider[];
  /** Client CA bundle: when set, client certificates are requested (not required, not verified at the handshake). */
  clientCA?: CAContentProvider;
  /** Node/OpenSSL protocol name: `TLSv1`, `TLSv1.1`, `TLSv1.2` (default), `TLSv1.3`. */
  minTLSVersion: TLSVersion;
  /** Go cipher suite names as given (`--tls-cipher-suites`); empty: runtime defaults. */
  cipherSuites: string[];
  /** The same suites as OpenSSL names (TLS ≤ 1.2 only; TLS 1.3 suites are not configurable). */
  openSSLCipherSuites: string[];
  /** Effective HTTP/2 MaxConcurrentStreams (flag value, or 100). */
  http2MaxStreamsPerConnection: number;
  disableHTTP2: boolean;
  permitPortSharing: boolean;
  permitAddressSharing: boolean;
  /** The loopback client's CA data (PEM, leaf + CA) and server name. */
  loopback?: { serverName: string; caPEM: string };
}
