#ifndef SLUICE_THREAD_NAME_H
#define SLUICE_THREAD_NAME_H

/// Names the calling thread as ps, top and /proc/PID/task/TID/comm show it (Linux `prctl(PR_SET_NAME)`, which Swift
/// cannot call: it is variadic). Linux keeps at most 15 bytes; a longer name is cut there. Returns 0, or -1 with errno.
int sluice_name_this_thread(const char *name);

#endif
