// edge-apiserver/node: the Node TLS listener, the node:fs FileSystem and the CLI entry point.
export { NodeServingListener, type NodeServingListenerOptions, maxHeaderBytes } from './listener.ts';
export { NodeFileSystem } from './fs.ts';
export { main, defaultHostIP, type MainOptions } from './cli.ts';
export { nodePlatform, nodeCompatiblePlatform } from './platform.ts';
