// What the test pages that load ortkeep from source (cache.html, pool.html)
// import, as one module: the public API and the internals those pages patch
// or read (the IndexedDB writers whose faults they inject, the core whose
// memory they measure). page-bundle.mjs bundles it to build/, and the pages'
// import maps send every one of these URLs there, so a page holds one
// instance of each and pays one request instead of js/'s ~84.
export * from '../../../js/index.js';
export { IdbStore } from '../../../js/cache/idb-store.js';
export { StoreFeed } from '../../../js/cache/store-beside.js';
export { getCore } from '../../../js/core/module.js';
