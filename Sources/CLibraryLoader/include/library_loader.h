// Shared libraries opened on first use instead of linked (CFFmpeg's libav, CSRT's libsrt): a worker that never
// needs them never maps them, nor the libraries they pull in. A loader (libav_loader.c, srt_loader.c) lists the
// functions Swift calls, one line each, and defines each under its own name, hidden from the dynamic symbol table,
// as a forwarder to the real one; this is what the loaders share.
#ifndef SLUICE_LIBRARY_LOADER_H
#define SLUICE_LIBRARY_LOADER_H

#include <pthread.h>
#include <stddef.h>

/// One set of libraries: their sonames in dependency order, their handles, and why they are not loaded.
struct sluice_library_set {
    const char *const *sonames;
    int count;
    void **handles;
    pthread_once_t once;
    /// Empty once every library is open and every function found; otherwise why not. Written only inside `once`.
    char failure[512];
};

/// Opens every library of `set` (RTLD_NOW | RTLD_LOCAL). Returns 0, or -1 with `set->failure` holding dlerror's text.
int sluice_library_set_open(struct sluice_library_set *set);

/// `name` in library `index` of `set` (dlsym on its handle searches it and its dependencies, never the executable),
/// or NULL with `set->failure` naming the library and the function.
void *sluice_library_set_symbol(struct sluice_library_set *set, int index, const char *name);

/// Marks `set` loaded; a loader calls it once every function is found.
void sluice_library_set_loaded(struct sluice_library_set *set);

/// Runs `open` once per process (it opens `set` and finds its functions) and says whether `set` is loaded; every
/// later call is one check. Each loader's forwarders call it through a `ready()` of their own.
static inline int sluice_library_set_ready(struct sluice_library_set *set, void (*open)(void)) {
    pthread_once(&set->once, open);
    return set->failure[0] == '\0';
}

/// The forwarders a loader defines for its list (`table` holds the real functions, `ready()` loads them once and
/// says whether they are there; `unloaded` is what the call returns when they are not).
#define SLUICE_FORWARD(ready, table, type, name, parameters, arguments, unloaded) \
    type name parameters { return ready() ? table.name arguments : (unloaded); }
#define SLUICE_FORWARD_VOID(ready, table, name, parameters, arguments) \
    void name parameters { if (ready()) table.name arguments; }

/// One function's lookup, inside a loader's open function: returns from it when the function is missing.
#define SLUICE_RESOLVE(set, table, library, name)                                        \
    if ((table.name = (__typeof__(&name))sluice_library_set_symbol(&(set), library, #name)) == NULL) return;

#endif
