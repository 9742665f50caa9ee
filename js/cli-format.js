// The human summary `ortkeep inspect` prints without --json.

const mib = (n) => `${(n / 1048576).toFixed(n >= 10485760 ? 1 : 2)} MiB`;

/** @returns {string} a few lines describing the model report */
export function formatSummary(file, r) {
  const opsets = Object.entries(r.opsetImports)
    .map(([d, v]) => `${d || 'ai.onnx'} ${v}`)
    .join(', ');
  const flow =
    Object.entries(r.controlFlow)
      .filter(([, n]) => n > 0)
      .map(([op, n]) => `${n} ${op}`)
      .join(', ') || 'none';
  const lines = [
    `${file}`,
    `  sha256       ${r.sha256}`,
    `  producer     ${r.producerName || '(none)'}${r.producerVersion ? ` ${r.producerVersion}` : ''}, IR ${r.irVersion}, opsets ${opsets}`,
    `  graphs       ${r.totals.graphs} (${r.totals.graphs - 1} subgraphs), ${r.totals.nodes} nodes, control flow: ${flow}`,
    `  weights      ${r.totals.initializers} initializers, ${mib(r.totals.initializerBytes)}` +
      (r.totals.subgraphInitializers
        ? ` (${r.totals.subgraphInitializers} in subgraphs, ${mib(r.totals.subgraphInitializerBytes)})`
        : ''),
  ];
  for (const io of ['inputs', 'outputs']) {
    if (!r[io]?.length) continue;
    const list = r[io].map((v) => `${v.name}[${(v.dims ?? []).map((d) => d ?? '?').join(',')}]`).join(' ');
    lines.push(`  ${io.padEnd(12)} ${list}`);
  }
  if (r.externalData.length)
    lines.push(
      `  external     ${r.externalData.length} initializers in ${[...new Set(r.externalData.map((e) => e.location))].join(', ')}`,
    );
  if (r.sharedInitializers.length) {
    lines.push(
      `  shared       ${r.sharedInitializers.length} initializers used by several graphs (onnxruntime may duplicate them in RAM):`,
    );
    for (const s of r.sharedInitializers.slice(0, 5))
      lines.push(`               ${s.name} (${mib(s.bytes)}) in ${s.graphs.join(', ')}`);
  }
  if (r.stamp) {
    lines.push(
      r.stamp.integrity === 'malformed'
        ? '  stamp        ortkeep.stamp present but malformed'
        : `  stamp        ${r.stamp.producer}: onnxruntime ${r.stamp.ort}, ${r.stamp.ep}, level ${r.stamp.level}, from ${r.stamp.source.slice(0, 16)}…; ${r.stamp.integrity === 'intact' ? 'intact' : 'STALE: the bytes before it changed since'}`,
    );
  }
  const meta = Object.keys(r.metadata);
  if (meta.length) lines.push(`  metadata     ${meta.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

/** @returns {string} what `ortkeep prepare` wrote, a line per form */
export function formatPrepared(m, manifestPath) {
  const lines = [
    `${m.source.file}: ${m.source.bytes} bytes, onnxruntime-web create ${m.source.createMs} ms at its default level`,
  ];
  for (const f of m.forms) {
    const v = f.verified;
    lines.push(
      f.file
        ? `  ${f.file}: ${f.bytes} bytes, level ${f.level}, create ${f.createMs} ms at 'disabled', verified on ${v.probes} probes (max |diff| ${v.maxAbsDiff.toExponential(1)})${f.stamp ? ', stamped' : ''}`
        : `  .${f.format}: FAILED verification (${v.reason}), not kept`,
    );
  }
  lines.push(`  manifest: ${manifestPath}`);
  return `${lines.join('\n')}\n`;
}
