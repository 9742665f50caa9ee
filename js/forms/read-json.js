// JSON from a URL: a file: URL read from disk in Node, else fetched (HTTP errors thrown).
import { isNode, readFileUrl } from '../platform/node.js';

/** @param {string|URL} url @returns {Promise<any>} */
export async function readJsonUrl(url) {
  const u = new URL(String(url));
  if (isNode && u.protocol === 'file:') return JSON.parse(new TextDecoder().decode(await readFileUrl(u)));
  const response = await fetch(u);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.json();
}

/** Text from a URL, as readJsonUrl reads it. @param {string|URL} url @returns {Promise<string>} */
export async function readTextUrl(url) {
  const u = new URL(String(url));
  if (isNode && u.protocol === 'file:') return new TextDecoder().decode(await readFileUrl(u));
  const response = await fetch(u);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}
