// workerd entry of the conformance suite (test/conformance/wrangler.toml): the Cloudflare
// adapter with the shared conformance settings.
import { createWorker } from '../../adapters/cloudflare/worker.ts';
import { conformanceSettings } from './setup.ts';

export default createWorker(conformanceSettings());
