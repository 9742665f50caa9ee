/* External data locations (see external_data.h). */
#include "external_data.h"

static int is_alpha(uint8_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

int ok_external_in_folder(const uint8_t *s, size_t n) {
    if (!s || n == 0 || s[0] == '/') return 0;
    /* a scheme: letter (letter | digit | + . -)* ':' */
    if (is_alpha(s[0])) {
        size_t i = 1;
        while (i < n &&
               (is_alpha(s[i]) || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '.' || s[i] == '-'))
            i++;
        if (i < n && s[i] == ':') return 0;
    }
    size_t seg = 0; /* start of the current segment */
    for (size_t i = 0; i <= n; i++) {
        if (i < n && (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')) return 0;
        if (i < n && s[i] != '/') continue;
        size_t len = i - seg;
        if (len == 0 || (len == 1 && s[seg] == '.') || (len == 2 && s[seg] == '.' && s[seg + 1] == '.'))
            return 0;
        seg = i + 1;
    }
    return 1;
}
