// The `edge-apiserver` command: kube-apiserver's flags → buildServerFromFlags → a TLS listener
// on --bind-address:--secure-port → server.run() until SIGTERM/SIGINT (a second signal exits 1
// at once, as upstream's SetupSignalHandler). Exit codes: 0 after a graceful shutdown and for
// --help; 1 for bad flags and start-up errors (`Error: <msg>`); 255 when a post-start hook fails.

import { chooseHostInterface } from './host-interface.ts';
import { nodePlatform } from './platform.ts';
import { pathToFileURL } from 'node:url';
import { buildServerFromFlags, type BuiltServer } from '../../src/app/build.ts';
import { registerNodeProcessMetrics } from './process-metrics.ts';
import { FlagError, HelpRequested } from '../../src/server/options/flags.ts';
import { ServerOptions } from '../../src/server/options/options.ts';
import { StaticCAContent, type CAContentProvider } from '../../src/server/dynamiccertificates/content.ts';
import type { Config } from '../../src/server/config.ts';
import { KlogLogger, formatLine, type Logger } from '../../src/util/logger.ts';
import { NodeServingListener, type NodeServingListenerOptions } from './listener.ts';
import { superviseProcesses, takeProcessesFlag } from './multiprocess.ts';

export const command = 'edge-apiserver';

const description = `The edge-apiserver serves the Kubernetes API server's HTTPS stack (kube-apiserver's
handler chain, health endpoints and lifecycle) with kube-apiserver's flags.
`;

export interface MainOptions {
  stdout?: (s: string) => void;
  stderr?: (s: string) => void;
  logger?: Logger;
  /** Listener tuning (tests shorten the header timeout). */
  listener?: NodeServingListenerOptions;
  /** Installs SIGTERM/SIGINT handlers (default true). */
  signals?: boolean;
  /** Aborts the run like a first signal (tests, embedding). */
  signal?: AbortSignal;
  /** Adjusts the Config after the flags (routes, hooks; see buildServerFromFlags). */
  configure?: (config: Config) => void | Promise<void>;
}

/** The host's first non-internal IPv4 address (upstream: the default-route interface IP). */
/** The host's default interface IP (utilnet.ChooseHostInterface), or undefined when there is none. */
export function defaultHostIP(): string | undefined {
  try {
    return chooseHostInterface();
  } catch {
    return undefined;
  }
}

/** Runs the command; resolves with the process exit code. */
export async function main(argvIn: readonly string[], opts: MainOptions = {}): Promise<number> {
  const stdout = opts.stdout ?? ((s) => process.stdout.write(s));
  const stderr = opts.stderr ?? ((s) => process.stderr.write(s));
  // --processes[=N] (ours): N processes of this command sharing the port (adapters/node/multiprocess.ts).
  const processes = takeProcessesFlag(argvIn);
  if (processes.error) {
    stderr(`Error: ${processes.error}\n`);
    return 1;
  }
  const argv = processes.rest;
  if (processes.processes !== undefined && processes.processes > 1)
    return superviseProcesses(argv, processes.processes, { stderr });
  const logger = opts.logger ?? new KlogLogger();
  // Signals are handled from the start, as upstream's SetupSignalHandler: a signal during
  // start-up makes run() shut down at once; a second one exits.
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      // The second signal: exit at once (upstream SetupSignalHandler).
      stderr(printfLine('I', `Received second ${sig}, exiting immediately`) + '\n');
      process.exit(1);
    }
    logger.info(`Received ${sig}, shutting down`);
    stop.abort();
  };
  if (opts.signals !== false) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  opts.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  // A child of --processes: its supervisor going away (even by SIGKILL) stops it.
  if (process.channel && process.env.EDGE_APISERVER_PROCESS_INDEX !== undefined) {
    process.channel.unref();
    process.once('disconnect', () => stop.abort());
  }
  try {
    return await start(argv, opts, { logger, stdout, stderr, stop });
  } finally {
    if (opts.signals !== false) {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
  }
}

interface StartContext {
  logger: Logger;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stop: AbortController;
}

async function start(
  argv: readonly string[],
  opts: MainOptions,
  { logger, stdout, stderr, stop }: StartContext,
): Promise<number> {
  const started = performance.now();

  let built: BuiltServer;
  try {
    built = await buildServerFromFlags(argv, {
      ...nodePlatform(),
      logger,
      configure: async (c) => {
        registerNodeProcessMetrics(c.metrics);
        await opts.configure?.(c);
      },
    });
  } catch (err) {
    if (err instanceof HelpRequested) {
      stdout(description + '\n' + new ServerOptions().flags.usage(command));
      return 0;
    }
    // component-base cli.Run: a flag parse error prints the usage, then the error last.
    if (err instanceof FlagError) stderr(new ServerOptions().flags.usage(command) + '\n');
    stderr(`Error: ${message(err)}\n`);
    return 1;
  }

  const { server, config } = built;
  const info = config.secureServing;
  if (!info) {
    stderr('Error: secure serving is not configured\n');
    return 1;
  }
  let listener: NodeServingListener;
  try {
    // Client certificates are requested when a client CA is configured: the authentication
    // options publish the watched --client-ca-file/--requestheader-client-ca-file bundle as
    // info.clientCA (the names offered in the handshake follow the files; verification is per
    // request); a CA an embedder set on the Config is offered as it is.
    let clientCA: CAContentProvider | undefined;
    if (!info.clientCA) {
      const auth = config.authentication;
      const caBundle = [auth.clientCA, auth.requestHeaderClientCA].filter(Boolean).join('\n');
      if (caBundle) clientCA = new StaticCAContent('client-ca-bundle', caBundle);
    }
    listener = new NodeServingListener(info, {
      logger,
      clientCA,
      onTLSHandshakeError: () => config.metrics?.tlsHandshakeErrors.inc(),
      ...opts.listener,
    });
    await listener.listen();
  } catch (err) {
    stderr(`Error: ${message(err)}\n`);
    return 1;
  }

  void config.lifecycleSignals.HasBeenReady.signaled.then(() => {
    logger.info(
      'Server became ready',
      { startupSeconds: Number(((performance.now() - started) / 1000).toFixed(3)) },
      2,
    );
  });

  try {
    await server.run({ signal: stop.signal, listener });
    return 0;
  } catch (err) {
    const msg = message(err);
    if (msg.startsWith('PostStartHook ')) {
      // klog.Fatalf: severity F, printf-style text, exit 255.
      stderr(printfLine('F', msg) + '\n');
      return 255;
    }
    stderr(`Error: ${msg}\n`);
    return 1;
  }
}

/** A klog printf-style line (Infof/Fatalf): header, then the text as is (not quoted). */
function printfLine(severity: string, text: string): string {
  return formatLine(severity, '').replace(/ ""$/, ' ') + text;
}

function message(err: unknown): string {
  if (err instanceof FlagError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

// `node adapters/node/cli.ts [flags]`
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
