// The tensor pool's shape-policy model (NonZero, a symbolic output, an
// output with no declared shape), written by tests/fixtures/make_shapes.py
// (Debian's python3-onnx) into build/models/.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../scripts/static-server.mjs';

export const SHAPES_PATH = path.join(REPO_ROOT, 'build/models/shapes.onnx');

/** Writes the model (cheap, deterministic) and returns its path. */
export function makeShapesModel() {
  mkdirSync(path.dirname(SHAPES_PATH), { recursive: true });
  execFileSync('/usr/bin/python3', [path.join(REPO_ROOT, 'tests/fixtures/make_shapes.py'), SHAPES_PATH]);
  return SHAPES_PATH;
}
