// The pool's declared-shapes model (an output with no shape, a real scalar,
// a symbol no input binds, a wrong fixed dim), written by
// tests/fixtures/make_declared.py (Debian's python3-onnx) into build/models/.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/static-server.mjs';

export const DECLARED_PATH = path.join(REPO_ROOT, 'build/models/declared.onnx');

/** Writes the model (cheap, deterministic) and returns its path. */
export function makeDeclaredModel() {
  mkdirSync(path.dirname(DECLARED_PATH), { recursive: true });
  execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_declared.py'), DECLARED_PATH]);
  return DECLARED_PATH;
}
