/* The stamp the C tests write: ortkeep 0.1.0 for onnxruntime 1.30.0, wasm,
 * level extended, made from `source` into `artifact` (their SHA-256). */
#ifndef ORTKEEP_TEST_STAMP_FIXTURE_H
#define ORTKEEP_TEST_STAMP_FIXTURE_H

#include <string.h>

#include "sha256.h"
#include "stamp.h"

static ok_stamp fixture_stamp(const uint8_t *source, size_t sn, const uint8_t *artifact, size_t an) {
    ok_stamp s;
    memset(&s, 0, sizeof s);
    strcpy(s.producer, "ortkeep 0.1.0");
    strcpy(s.ort, "1.30.0");
    strcpy(s.ep, "wasm");
    strcpy(s.level, "extended");
    ok_sha256(source, sn, s.source);
    ok_sha256(artifact, an, s.artifact);
    return s;
}

#endif
