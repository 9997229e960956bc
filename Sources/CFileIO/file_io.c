#include "file_io.h"

#include <sys/syscall.h>
#include <unistd.h>

int sluice_start_writeback(int descriptor) {
    return (int)syscall(SYS_sync_file_range, descriptor, (long long)0, (long long)0, 2U /* SYNC_FILE_RANGE_WRITE */);
}
