// The synthetic decoder-step model of the tensor pool tests, written by
// tests/fixtures/make_decoder.py (Debian's python3-onnx) into build/models/.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/static-server.mjs';

export const DECODER_PATH = path.join(REPO_ROOT, 'build/models/decoder_step.onnx');

/** Writes the model (cheap, deterministic) and returns its path. */
export function makeDecoder() {
  mkdirSync(path.dirname(DECODER_PATH), { recursive: true });
  execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_decoder.py'), DECODER_PATH]);
  return DECODER_PATH;
}
