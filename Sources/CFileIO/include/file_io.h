#ifndef SLUICE_FILE_IO_H
#define SLUICE_FILE_IO_H

/// Starts writing a file's dirty pages to disk without waiting (Linux `sync_file_range` with
/// SYNC_FILE_RANGE_WRITE, through syscall(2): glibc declares it only under _GNU_SOURCE, and Swift cannot call the
/// variadic syscall). A writer that calls this as it goes leaves little for its final fsync. Returns 0, or -1 with
/// errno (ENOSYS, ESPIPE: nothing to do there).
int sluice_start_writeback(int descriptor);

#endif
