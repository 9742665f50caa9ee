// `node scripts/bench-gpu.mjs --pack DIR`: one folder that runs the GPU bench
// on a Linux x64 machine with no npm and no network. It mirrors the
// repository's layout (so bench-gpu.mjs runs unchanged) with only what the
// bench loads: this machine's Node binary (and any shared library it needs
// beyond glibc/libstdc++), onnxruntime-web's WebGPU bundle and its JSEP wasm,
// Dawn's linux-x64 addon, ortkeep's js/ and core, the models, and the Vulkan
// loader when one can be had. The three big binaries are stored gzip'd
// (gzip is on every Linux; xz would save ~12 MB but took minutes here) and
// unpacked by run.sh on first use.
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, readdirSync, statSync } from 'node:fs';
import { chmod, copyFile, cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { MODELS } from './models.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = path.join(ROOT, 'build/bench-gpu/.pack-cache');

// What glibc-based Linux machines all have; anything else ldd names is packed.
const SYSTEM_LIBS = /^(linux-vdso|libc|libm|libdl|libpthread|librt|ld-linux[-\w]*|libgcc_s|libstdc\+\+)\.so/;

// The JSEP bundle embeds its loader; the loader is packed too for the case
// where it imports it by URL.
const ORT_FILES = ['package.json', 'dist/ort.bundle.min.mjs', 'dist/ort-wasm-simd-threaded.jsep.mjs'];
const GZIPPED = {
  'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm':
    'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm',
  'node_modules/webgpu/dist/linux-x64/dawn.node': 'node_modules/webgpu/dist/linux-x64/dawn.node',
};

/**
 * gzip'd copy (-9), cached by source name, size and mtime: packing twice is
 * quick. `strip` drops debug info first (Node's binary carries some).
 */
async function gzipCached(src, dest, { strip = false } = {}) {
  const st = statSync(src);
  const key = `${path.basename(src)}-${st.size}-${Math.floor(st.mtimeMs)}${strip ? '-stripped' : ''}.gz`;
  const cached = path.join(CACHE, key);
  if (!existsSync(cached)) {
    await mkdir(CACHE, { recursive: true });
    let input = src;
    if (strip) {
      try {
        execFileSync('strip', ['--strip-debug', '-o', `${cached}.bin`, src]);
        input = `${cached}.bin`;
      } catch {
        /* no binutils: the binary as it is */
      }
    }
    await pipeline(createReadStream(input), createGzip({ level: 9 }), createWriteStream(`${cached}.tmp`));
    await rename(`${cached}.tmp`, cached);
    await rm(`${cached}.bin`, { force: true });
  }
  await mkdir(path.dirname(dest), { recursive: true });
  await copyFile(cached, dest);
}

/** Shared libraries `ldd` says a binary needs beyond the base system. */
function extraLibs(binary) {
  let out = '';
  try {
    out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  } catch {
    return [];
  }
  const libs = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\S+)\s+=>\s+(\/\S+)/.exec(line);
    if (m && !SYSTEM_LIBS.test(m[1])) libs.push({ name: m[1], path: m[2] });
  }
  return libs;
}

/**
 * Dawn dlopens libvulkan.so.1 (GPU images often lack it): this machine's, or
 * Debian's libvulkan1 fetched with apt-get download (cached), or none (run.sh
 * then needs one on the GPU machine).
 */
function vulkanLoader() {
  try {
    const m = /libvulkan\.so\.1 \([^)]*\) => (\S+)/.exec(execFileSync('ldconfig', ['-p'], { encoding: 'utf8' }));
    if (m) return m[1];
  } catch {
    /* no ldconfig */
  }
  const dir = path.join(CACHE, 'libvulkan1');
  const found = () => {
    for (const d of ['usr/lib/x86_64-linux-gnu', 'lib/x86_64-linux-gnu']) {
      const p = path.join(dir, 'x', d, 'libvulkan.so.1');
      if (existsSync(p)) return p;
    }
    return null;
  };
  if (found()) return found();
  try {
    execFileSync('mkdir', ['-p', dir]);
    execFileSync('apt-get', ['download', 'libvulkan1'], { cwd: dir, stdio: 'ignore', timeout: 60000 });
    const deb = readdirSync(dir).find((f) => f.endsWith('.deb'));
    execFileSync('dpkg-deb', ['-x', path.join(dir, deb), path.join(dir, 'x')]);
  } catch {
    return null;
  }
  return found();
}

const RUN_SH = `#!/bin/sh
# Runs ortkeep's GPU pool bench from this folder: no npm, no network.
#   ./run.sh [--blocks 5] [--runs 50] [--models kv_decoder,...]
# Writes bench-gpu.{json,md} to $BENCH_OUT, else $OUT, else ./out.
# Needs: Linux x64 with glibc, a GPU with a Vulkan driver (NVIDIA: the
# driver's libGLX_nvidia.so.0; its ICD file is written here if the image has
# none). Without a GPU adapter it prints "no GPU adapter" and exits 0.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ ! -w "$HERE" ]; then
  W="\${TMPDIR:-/tmp}/ortkeep-bench-gpu"; mkdir -p "$W"; cp -R "$HERE/." "$W/"; HERE="$W"
fi
# the big binaries are stored gzip'd; unpack each once
while read -r f; do
  [ -n "$f" ] || continue
  if [ ! -f "$HERE/$f" ]; then gzip -dc "$HERE/$f.gz" > "$HERE/$f.tmp" && mv "$HERE/$f.tmp" "$HERE/$f"; fi
done < "$HERE/gzipped.txt"
chmod +x "$HERE/bin/node"
export LD_LIBRARY_PATH="$HERE/lib\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# An NVIDIA container may ship the driver's Vulkan library but no ICD file.
have_icd=no
for d in /etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d; do
  ls "$d"/*.json >/dev/null 2>&1 && have_icd=yes
done
if [ "$have_icd" = no ] && [ -z "\${VK_ICD_FILENAMES:-}" ] && ldconfig -p 2>/dev/null | grep -q libGLX_nvidia.so.0; then
  mkdir -p "$HERE/icd"
  printf '{"file_format_version":"1.0.0","ICD":{"library_path":"libGLX_nvidia.so.0","api_version":"1.3"}}\\n' > "$HERE/icd/nvidia_icd.json"
  export VK_ICD_FILENAMES="$HERE/icd/nvidia_icd.json" VK_DRIVER_FILES="$HERE/icd/nvidia_icd.json"
fi
export BENCH_OUT="\${BENCH_OUT:-\${OUT:-$HERE/out}}"
exec "$HERE/bin/node" "$HERE/scripts/bench-gpu.mjs" "$@"
`;

export async function pack(dest, { log = console.log } = {}) {
  const t0 = performance.now();
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error('pack: linux-x64 only (Dawn addon, Node binary)');
  await rm(dest, { recursive: true, force: true });
  await mkdir(dest, { recursive: true });
  const from = (p) => path.join(ROOT, p);
  const to = (p) => path.join(dest, p);
  const copy = async (p) => {
    await mkdir(path.dirname(to(p)), { recursive: true });
    await copyFile(from(p), to(p));
  };
  // the decoder fixture is generated, not shipped: make it if missing
  if (!existsSync(from(MODELS[0].path))) (await import('../../tests/decoder-model.mjs')).makeDecoder();

  const gz = [];
  const jobs = [];
  const node = process.execPath;
  jobs.push(gzipCached(node, to('bin/node.gz'), { strip: true }));
  gz.push('bin/node');
  for (const [src, rel] of Object.entries(GZIPPED)) {
    jobs.push(gzipCached(from(src), to(`${rel}.gz`)));
    gz.push(rel);
  }
  // ortkeep: package.json (type, #imports), js/, the core, this bench
  await copy('package.json');
  await cp(from('js'), to('js'), { recursive: true });
  for (const f of ['dist/ortkeep-core.mjs', 'dist/ortkeep-core.wasm']) await copy(f);
  if (existsSync(from('dist/ort-capture')))
    await cp(from('dist/ort-capture'), to('dist/ort-capture'), { recursive: true });
  await copy('scripts/bench-gpu.mjs');
  await copy('scripts/bench-gpu/models.mjs');
  for (const f of ORT_FILES) await copy(`node_modules/onnxruntime-web/${f}`);
  for (const f of ['package.json', 'index.js']) await copy(`node_modules/webgpu/${f}`);
  for (const m of MODELS) await copy(m.path);
  const libs = extraLibs(node);
  await mkdir(to('lib'), { recursive: true });
  for (const l of libs) await copyFile(l.path, to(`lib/${l.name}`));
  const vulkan = vulkanLoader();
  if (vulkan) await copyFile(vulkan, to('lib/libvulkan.so.1'));
  await Promise.all(jobs);
  await writeFile(to('gzipped.txt'), `${gz.join('\n')}\n`);
  await writeFile(to('run.sh'), RUN_SH);
  await chmod(to('run.sh'), 0o755);
  const bytes = Number(execFileSync('du', ['-sb', dest], { encoding: 'utf8' }).split('\t')[0]);
  const nodeGz = statSync(to('bin/node.gz')).size;
  const notes = [
    `packed ${dest}: ${(bytes / 1e6).toFixed(1)} MB (${(bytes / 2 ** 20).toFixed(1)} MiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s; target <= 60 MB: ${bytes <= 60e6 ? 'met' : `over by ${((bytes - 60e6) / 1e6).toFixed(1)} MB`}`,
    `  node ${process.version} (${node}, ${(statSync(node).size / 1e6).toFixed(1)} MB, ${(nodeGz / 1e6).toFixed(1)} MB gzip'd)${libs.length ? `; libraries: ${libs.map((l) => l.name).join(', ')}` : '; needs only glibc and libstdc++'}`,
    vulkan
      ? `  Vulkan loader: lib/libvulkan.so.1 (from ${vulkan})`
      : '  Vulkan loader: none found; the GPU machine needs libvulkan.so.1 (Debian/Ubuntu libvulkan1)',
    `  run: ${path.join(dest, 'run.sh')} (writes to $BENCH_OUT or $OUT)`,
  ];
  for (const n of notes) log(n);
  await writeFile(
    to('README.txt'),
    `ortkeep GPU pool bench, packed ${new Date().toISOString()} from ${os.hostname()}\n${notes.join('\n')}\n`,
  );
  return { dir: dest, bytes, vulkan: Boolean(vulkan), libs: libs.map((l) => l.name) };
}
