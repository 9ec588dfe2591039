// Conformance target: in-process `fetch` (what an embedder calls), through the shared EdgeServer.
import { EdgeServer } from '../../src/app/edge.ts';
import { conformanceSettings } from './setup.ts';
import { fromResponse, registerConformance, toRequest } from './cases.ts';

const server = new EdgeServer(conformanceSettings());
registerConformance('in-process fetch', {
  async start() {
    await server.ready();
    return async (req) => fromResponse(await server.fetch(toRequest(req), { remoteAddress: '127.0.0.1' }));
  },
  stop: () => server.stop(),
});
