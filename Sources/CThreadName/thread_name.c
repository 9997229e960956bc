#include "thread_name.h"

#include <sys/prctl.h>

int sluice_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, name, 0, 0, 0);
}
