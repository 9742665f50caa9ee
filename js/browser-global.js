// Entry of the script-tag bundle (dist/ortkeep.iife.js): window.ortkeep.
// The core's .wasm is looked up next to the bundle's own URL.
import * as ortkeep from './index.js';

const script = typeof document !== 'undefined' ? document.currentScript : null;
if (script?.src) ortkeep.setCoreWasmUrl(new URL('ortkeep-core.wasm', script.src));
globalThis.ortkeep = ortkeep;
