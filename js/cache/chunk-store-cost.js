// What storing one chunk costs in this page (ms): the last one measured, by
// any load (0: none yet). The core decides from it whether a chunk is stored
// during a download (ok_store_chunk_mid_download, js/cache/load-driver.js).
export const chunkStore = { ms: 0 };
