// The browser build of ./node.js (package.json "browser" field): no Node
// built-ins. isNode is false, so the functions below are never reached.
const nodeOnly = () => Promise.reject(new Error('ortkeep: file paths and file: URLs are read in Node only'));

export const isNode = false;
export const pathToUrl = nodeOnly;
export const readFileUrl = nodeOnly;
export const fileResponse = nodeOnly;
