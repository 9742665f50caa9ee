// What storing one chunk costs in this page (ms): the last one measured, by
// any load. The load driver lets the core store a chunk during a download
// only when the network has kept it waiting that long and the rest of the
// body will take longer (js/cache/load-driver.js).
export const chunkStore = { ms: 200 };
