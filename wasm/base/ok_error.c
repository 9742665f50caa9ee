/* Status names, from the one list in ok_error.h. */
#include "ok_error.h"

const char *ok_status_name(int status) {
    switch (status) {
    case OK_OK: return "OK";
#define OK_STATUS_NAME_(name, value, what) \
    case value: return #name;
        OK_STATUS_LIST(OK_STATUS_NAME_)
#undef OK_STATUS_NAME_
    default: return 0;
    }
}
