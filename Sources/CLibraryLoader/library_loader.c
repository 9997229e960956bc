#include <dlfcn.h>
#include <stdio.h>
#include "library_loader.h"

int sluice_library_set_open(struct sluice_library_set *set) {
    for (int index = 0; index < set->count; index++) {
        set->handles[index] = dlopen(set->sonames[index], RTLD_NOW | RTLD_LOCAL);
        if (set->handles[index] == NULL) {
            const char *reason = dlerror();
            snprintf(set->failure, sizeof set->failure, "%s", reason ? reason : set->sonames[index]);
            return -1;
        }
    }
    return 0;
}

void *sluice_library_set_symbol(struct sluice_library_set *set, int index, const char *name) {
    void *symbol = dlsym(set->handles[index], name);
    if (symbol == NULL) snprintf(set->failure, sizeof set->failure, "%s has no %s", set->sonames[index], name);
    return symbol;
}

void sluice_library_set_loaded(struct sluice_library_set *set) {
    set->failure[0] = '\0';
}
